// A small tmpfs for the disk-full tests: the only way to fill a file system for real without filling the
// machine's. Mounting needs root; mountTmpfs answers null elsewhere and the test skips with the reason.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function mountTmpfs(sizeMb: number): string | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-fault-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

export function unmount(dir: string): void {
  execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
}

/** Writes zeros to `file` until the file system is full (dd stops with ENOSPC, which is the point). */
export function fillUp(file: string, blockSize = '1M'): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${file}`, `bs=${blockSize}`, 'count=100000'], {
      stdio: 'ignore',
    });
  } catch {
    // ENOSPC: full
  }
}
