// Process-count limit through a pids cgroup per command. RLIMIT_NPROC alone is not enough when toolgate
// runs as root: the kernel exempts processes whose host uid is root, and bwrap maps the sandbox user to
// the service's uid. A cgroup also lets us kill every process of a command, even ones that escaped its
// process group. cgroup v1 (pids hierarchy) and v2 (pids controller) are supported when writable.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/**
 * Processes of the sandbox machinery counted in the cgroup: none, since commands are started by the
 * session runtime and only the command's own process (held, then exec'd) joins it.
 */
const OVERHEAD_PROCESSES = 0;

export interface CommandCgroup {
  /** File the wrapper shell writes its own pid to, joining the cgroup before it execs the command. */
  readonly procsFile: string;
  /** Moves a process (host pid) into the cgroup; its children are born inside. */
  join(pid: number): void;
  killAll(): void;
  /** Removes the cgroup once empty (retries while the kernel finishes tearing the processes down). */
  remove(): void;
}

export class PidsCgroups {
  private constructor(private readonly base: string) {}

  /** A writable pids hierarchy, or undefined (then only RLIMIT_NPROC applies). */
  static detect(root = '/sys/fs/cgroup'): PidsCgroups | undefined {
    const candidates: Array<{ dir: string; prepare(): void }> = [
      { dir: path.join(root, 'pids', 'toolgate'), prepare: () => undefined },
      {
        dir: path.join(root, 'toolgate'),
        prepare: () => {
          // v2: the controller must be enabled for the children of every level we create.
          if (!readFileSync(path.join(root, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('pids')) {
            throw new Error('no pids controller');
          }
          writeFileSync(path.join(root, 'cgroup.subtree_control'), '+pids');
          writeFileSync(path.join(root, 'toolgate', 'cgroup.subtree_control'), '+pids');
        },
      },
    ];
    for (const candidate of candidates) {
      try {
        if (!existsSync(path.dirname(candidate.dir))) continue;
        mkdirSync(candidate.dir, { recursive: true });
        candidate.prepare();
        const probe = new PidsCgroups(candidate.dir).create(4);
        probe.remove();
        return new PidsCgroups(candidate.dir);
      } catch {
        // Not writable here (not root, read-only cgroupfs, no pids controller): try the next layout.
      }
    }
    return undefined;
  }

  create(maxProcesses: number): CommandCgroup {
    const dir = path.join(this.base, `cmd-${randomBytes(6).toString('hex')}`);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'pids.max'), String(maxProcesses + OVERHEAD_PROCESSES));
    const procsFile = path.join(dir, 'cgroup.procs');
    const members = (): number[] => {
      try {
        return readFileSync(procsFile, 'utf8').split('\n').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    };
    return {
      procsFile,
      join(pid) {
        writeFileSync(procsFile, String(pid));
      },
      killAll() {
        // A few rounds: a process may fork between our read and its kill (pids.max bounds how many).
        for (let round = 0; round < 3; round++) {
          const pids = members();
          if (pids.length === 0) return;
          for (const pid of pids) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // Already gone.
            }
          }
        }
      },
      remove: () => removeCgroupWhenEmpty(dir),
    };
  }
}

/** Removes a cgroup once empty: retries (10 s) while the kernel finishes tearing its processes down. */
export function removeCgroupWhenEmpty(dir: string): void {
  let attempts = 0;
  const tryRemove = () => {
    try {
      rmdirSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && attempts++ < 40) setTimeout(tryRemove, 250).unref();
    }
  };
  tryRemove();
}
