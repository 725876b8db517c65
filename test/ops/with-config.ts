// startApp (or injectApp) with a TOOLGATE_CONFIG file: most operational settings (quotas, retention, idle expiry,
// auth throttling) live in the config file, so tests write a real one into a temp dir.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { injectApp, startApp, tempDir, type InjectApp, type TestApp } from '../helpers/app.js';

export function writeConfigFile(config: object): string {
  const file = path.join(tempDir('toolgate-config-'), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

export const startAppWithConfig = (config: object, env: Record<string, string> = {}): Promise<TestApp> =>
  startApp({ TOOLGATE_CONFIG: writeConfigFile(config), ...env });

export const injectAppWithConfig = (config: object, env: Record<string, string> = {}): Promise<InjectApp> =>
  injectApp({ TOOLGATE_CONFIG: writeConfigFile(config), ...env });
