// Atomic file replacement: write a temp file beside the target, fsync, rename over it. A crash or a
// failed write leaves either the old file or the new one, never half of either. Keeps the old mode.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  mode?: number,
): Promise<void> {
  const existingMode =
    mode ??
    (await fs
      .stat(target)
      .then((s) => s.mode & 0o7777)
      .catch(() => undefined));
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.tg-${randomBytes(6).toString('hex')}.tmp`,
  );
  const handle = await fs.open(temp, 'wx', existingMode ?? 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
    if (existingMode !== undefined) await handle.chmod(existingMode);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(temp, target);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}
