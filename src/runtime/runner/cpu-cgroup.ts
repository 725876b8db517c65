// The sessions' share of the CPU: every session runtime (and every process it starts) runs in a cpu
// cgroup of its own under one `toolgate` group whose weight is low against the service's process. When
// both want the CPU, the service's event loop (routing, policy, audit for every session) gets it first
// and the sessions share what it leaves; a session's subgroup has the default weight, so a session
// running ten processes gets no more than one running one. An idle service takes nothing from them.
//
// Why a cgroup and not nice(2): the kernel's autogroup scheduling puts each process session (setsid:
// bwrap's --new-session, every command) in a group of its own at full weight, so a nice value set on the
// runtime would not reach the commands it starts, and a group of one process weighs as much as the
// whole service. Tasks in a cgroup other than the root are not autogrouped.
//
// cgroup v1 (the cpu hierarchy) and v2 (the cpu controller, beside the pids one of cgroup.ts) are used
// when writable; elsewhere (not root, a read-only cgroupfs) runtimes run at the service's weight.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { removeCgroupWhenEmpty } from './cgroup.js';

/** One session runtime's cpu cgroup: the file its launcher writes its pid to, and its removal. */
export interface SessionCpuGroup {
  readonly procsFile: string;
  /** Removes the group once its processes are gone (retries while the kernel tears them down). */
  remove(): void;
}

interface Layout {
  /** The `toolgate` group: its weight is the sessions' weight against the service. */
  readonly base: string;
  /** Writes the sessions' weight (1–10000, cgroup v2's scale: 100 is the default) to the group. */
  setWeight(dir: string, weight: number): void;
}

const GROUP_PREFIX = 's-';

export class SessionCpuGroups {
  private constructor(
    readonly base: string,
    /** cgroup v1 only: the CPU pool's threads join their group through this file (v2 moves whole processes). */
    readonly threadsFile: string | undefined,
  ) {}

  /** The writable layout of this host, or undefined (then runtimes run at the service's weight). */
  static detect(weight: number, root = '/sys/fs/cgroup'): SessionCpuGroups | undefined {
    const layouts: Array<() => Layout & { check?: () => void; threads?: boolean }> = [
      () => ({
        // v1: a hierarchy of its own, cpu.shares on a scale where 1024 is the default.
        base: path.join(root, 'cpu', 'toolgate'),
        setWeight: (dir, w) => writeFileSync(path.join(dir, 'cpu.shares'), String(sharesOf(w))),
        threads: true,
        check: () => {
          if (!existsSync(path.join(root, 'cpu', 'cpu.shares'))) throw new Error('no cpu hierarchy');
        },
      }),
      () => {
        // v2: one tree; the cpu controller must be enabled for the children of the root.
        if (!readFileSync(path.join(root, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')) {
          throw new Error('no cpu controller');
        }
        writeFileSync(path.join(root, 'cgroup.subtree_control'), '+cpu');
        return {
          base: path.join(root, 'toolgate'),
          setWeight: (dir, w) => {
            writeFileSync(path.join(dir, 'cpu.weight'), String(w));
            // And for the sessions' groups below it, so they share the group's time equally (without it
            // their processes would compete one by one). The commands' pids groups share the level.
            writeFileSync(path.join(dir, 'cgroup.subtree_control'), '+cpu');
          },
        };
      },
    ];
    for (const make of layouts) {
      try {
        const layout = make();
        layout.check?.();
        mkdirSync(layout.base, { recursive: true });
        layout.setWeight(layout.base, weight);
        // v1: the CPU pool's worker threads (a call's heavy work: src/cpu) join a group of their own
        // beside the sessions', at the default weight: all of them together count as one session.
        const workers = path.join(layout.base, 'workers');
        if (layout.threads) mkdirSync(workers, { recursive: true });
        const threadsFile = layout.threads ? path.join(workers, 'tasks') : undefined;
        const groups = new SessionCpuGroups(layout.base, threadsFile);
        groups.sweep();
        groups.create('probe').remove();
        return groups;
      } catch {
        // Not writable here, or no cpu controller: try the next layout.
      }
    }
    return undefined;
  }

  /** A group for one runtime of `sessionId` (unique: a service restart or another service never shares it). */
  create(sessionId: string): SessionCpuGroup {
    const dir = path.join(this.base, `${GROUP_PREFIX}${sessionId}-${randomBytes(4).toString('hex')}`);
    mkdirSync(dir);
    return {
      procsFile: path.join(dir, 'cgroup.procs'),
      remove: () => removeCgroupWhenEmpty(dir),
    };
  }

  /** Groups a previous life of a service left (killed before it removed them); busy ones stay. */
  private sweep(): void {
    for (const name of readdirSync(this.base)) {
      if (!name.startsWith(GROUP_PREFIX)) continue;
      try {
        rmdirSync(path.join(this.base, name));
      } catch {
        // Still has processes (another service's live runtime): not ours to touch.
      }
    }
  }
}

/** cgroup v1's cpu.shares for a v2 weight (the same mapping systemd and runc use for the other way). */
const sharesOf = (weight: number): number => Math.max(2, Math.round((weight * 1024) / 100));

/**
 * The launch of a runtime in its group: a shell writes its own pid to the group's procs file and then
 * execs the launcher, so every process the runtime starts is born inside. Joining after the spawn would
 * race bwrap's first fork. When the join fails (the group is gone) the runtime starts all the same.
 */
export function launchInCpuGroup(
  launch: { file: string; args: readonly string[] },
  group: SessionCpuGroup | undefined,
): { file: string; args: string[] } {
  if (!group) return { file: launch.file, args: [...launch.args] };
  return {
    file: '/bin/sh',
    args: ['-c', '{ echo $$ > "$0"; } 2>/dev/null; exec "$@"', group.procsFile, launch.file, ...launch.args],
  };
}
