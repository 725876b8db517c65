// Free space and inodes of the data filesystem: /readyz compares them with the configured floors and
// /metrics exposes them, so a filling disk is seen before it stops anything.
import { statfs } from 'node:fs/promises';

export interface DiskState {
  freeBytes: number;
  freeInodes: number;
  totalBytes: number;
}

export async function diskState(dir: string): Promise<DiskState> {
  const stats = await statfs(dir);
  return {
    freeBytes: stats.bavail * stats.bsize,
    freeInodes: stats.ffree,
    totalBytes: stats.blocks * stats.bsize,
  };
}
