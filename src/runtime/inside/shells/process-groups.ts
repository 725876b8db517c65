// The process groups of a shell's session, read from /proc (the runtime's own view: inside the sandbox's
// pid namespace only the sandbox's processes show). A shell runs with job control, so each command it
// starts is a group of its own in the shell's session; a timeout signals the groups a command made.
import { readdirSync, readFileSync } from 'node:fs';

/** pgrp and session of a process (fields 5 and 6 of /proc/<pid>/stat, after the name in parentheses). */
function groupAndSession(pid: string): [number, number] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [Number(fields[2]), Number(fields[3])];
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Every process group in session `session` other than the session leader's own. */
export function groupsOfSession(session: number): Set<number> {
  const groups = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const found = groupAndSession(name);
    if (found && found[1] === session && found[0] !== session) groups.add(found[0]);
  }
  return groups;
}

/**
 * The groups the shell's children lead now (background jobs of earlier commands): one read of the
 * shell's children list; a full scan where the kernel has no such file.
 */
export function childGroups(shellPid: number): Set<number> {
  try {
    const children = readFileSync(`/proc/${shellPid}/task/${shellPid}/children`, 'utf8').trim();
    const groups = new Set<number>();
    for (const pid of children ? children.split(' ') : []) {
      const found = groupAndSession(pid);
      if (found) groups.add(found[0]);
    }
    return groups;
  } catch {
    return groupsOfSession(shellPid);
  }
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}
