// The admin bearer key: TOOLGATE_API_KEY, or generated once into <dataDir>/admin.key (mode 0600).
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export interface AdminKey {
  key: string;
  /** Where it came from, for the start-up log line (never the key itself, except when just generated). */
  source: 'env' | 'file' | 'generated';
  file?: string;
}

export async function loadAdminKey(dataDir: string, fromEnv: string | undefined): Promise<AdminKey> {
  if (fromEnv) return { key: fromEnv, source: 'env' };
  const file = path.join(dataDir, 'admin.key');
  const existing = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (existing?.trim()) return { key: existing.trim(), source: 'file', file };
  const key = `tga_${randomBytes(32).toString('base64url')}`;
  // 'wx' so two processes starting at once cannot both write different keys.
  try {
    await fs.writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadAdminKey(dataDir, undefined);
    throw err;
  }
  return { key, source: 'generated', file };
}
