// The service process's own settings, all from the environment: where it listens (PORT, HOST), its data
// dir and admin key, and its logs (LOG_LEVEL, LOG_FORMAT).
import path from 'node:path';
import { parseInteger, type Env } from './env.js';
import { ConfigError } from './error.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** pretty: readable lines (pino-pretty); json: one JSON object a line; auto: pretty on a terminal. */
export type LogFormat = 'auto' | 'json' | 'pretty';

export function serviceConfig(env: Env) {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const logFormat = (env.LOG_FORMAT || 'auto') as LogFormat;
  if (!['auto', 'json', 'pretty'].includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be auto, json or pretty, got "${env.LOG_FORMAT}"`);
  }
  return {
    port: parseInteger('PORT', env.PORT, 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.TOOLGATE_DATA_DIR || './data'),
    apiKey: env.TOOLGATE_API_KEY || undefined,
    logLevel,
    logFormat,
  };
}
