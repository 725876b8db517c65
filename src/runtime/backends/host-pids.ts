// Maps a pid seen inside a pid namespace to the host's pid, by walking the runtime's process tree in
// the host's /proc (children lists and NSpid lines). Used to put a held command into its cgroup.
import { readFileSync } from 'node:fs';

const children = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** The pid as seen in the innermost namespace of the process. */
const innermostPid = (pid: number): number | undefined => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^NSpid:\s+(.+)$/m);
    const ids = line?.[1].trim().split(/\s+/).map(Number);
    return ids?.[ids.length - 1];
  } catch {
    return undefined;
  }
};

/** Searches the descendants of `rootPid` (breadth first, bounded) for the one whose inner pid is `innerPid`. */
export function findDescendant(rootPid: number, innerPid: number, maxVisited = 4096): number | undefined {
  const queue = [rootPid];
  let visited = 0;
  while (queue.length > 0 && visited++ < maxVisited) {
    const pid = queue.shift()!;
    if (pid !== rootPid && innermostPid(pid) === innerPid) return pid;
    queue.push(...children(pid));
  }
  return undefined;
}

/** Host pid of a direct child (inner pid `innerChild`) of the process with host pid `parent`. */
export function findChild(parent: number, innerChild: number): number | undefined {
  for (const pid of children(parent)) if (innermostPid(pid) === innerChild) return pid;
  return undefined;
}
