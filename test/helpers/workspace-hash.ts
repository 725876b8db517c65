// One SHA-256 over a session's workspace tree (every path, its type, mode and content): tests that must
// change nothing on disk (validate, dry_run) compare it before and after.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { AnyTestApp } from './app.js';

export function hashDirectory(root: string): string {
  const hash = createHash('sha256');
  const visit = (relative: string) => {
    const full = path.join(root, relative);
    const stat = lstatSync(full);
    hash.update(`${relative}\0${stat.mode}\0`);
    if (stat.isSymbolicLink()) hash.update(readlinkSync(full));
    else if (stat.isFile()) hash.update(readFileSync(full));
    else if (stat.isDirectory()) {
      for (const name of readdirSync(full).sort()) visit(path.join(relative, name));
    }
  };
  visit('.');
  return hash.digest('hex');
}

export const hashWorkspace = (t: AnyTestApp, sessionId: string): string =>
  hashDirectory(t.app.services.workspaces.dirFor(sessionId));
