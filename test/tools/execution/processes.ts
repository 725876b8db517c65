// Host-side process checks for the sandbox tests: find processes by their exact argv, see if they live.
import { readdirSync, readFileSync } from 'node:fs';

/** Host pids of live (non-zombie) processes whose argv is exactly `argv`. */
export function pidsWithArgv(argv: string[]): number[] {
  const wanted = argv.join('\0');
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0$/, '');
      if (cmdline === wanted && isAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/**
 * Processes of a run_command command and of the subshells it forked: the runtime starts it as
 * `bash -c <limits and eval> bash <command>`, so the command string is the last argument.
 */
export function pidsOfCommand(command: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0$/, '').split('\0');
      if (argv.at(-1) === command && argv.includes('-c') && isAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** True while the process exists and is not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `check` every 25 ms until it returns true or `ms` pass. */
export async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}
