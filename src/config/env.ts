// Reading environment variables for the config sections: every variable is parsed here or in a section
// file, never elsewhere in src/, and a bad value names its variable.
import path from 'node:path';
import { ConfigError } from './error.js';

/** The environment a config is built from (process.env in the server, a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>;

export function parseInteger(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** An on/off environment switch. */
export function parseSwitch(name: string, raw: string): boolean {
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  throw new ConfigError(`${name} must be "on" or "off", got "${raw}"`);
}

/** A comma-separated list; blanks dropped. */
export function parseList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A directory variable, resolved against the working directory; undefined when unset or empty. */
export function resolvedPath(raw: string | undefined): string | undefined {
  return raw ? path.resolve(raw) : undefined;
}
