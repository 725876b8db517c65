// Host memory of what a bench started, measured per process rather than from MemAvailable (which every
// other process on a shared machine moves): the proportional set size (Pss, shared pages split among
// their users) of a process tree, and of the containerd shims of given containers.
import { readdir, readFile } from 'node:fs/promises';

async function pssOf(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  const match = /^Pss:\s+(\d+) kB/m.exec(text);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Every process as pid → parent pid and command line. */
async function processes(): Promise<Map<number, { ppid: number; cmdline: string }>> {
  const table = new Map<number, { ppid: number; cmdline: string }>();
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // The command name may hold spaces and parentheses: the fields after its last ')' are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    if (Number.isInteger(ppid)) table.set(pid, { ppid, cmdline });
  }
  return table;
}

/** Pss of every descendant of `root` (not `root` itself): a service's runtimes and their commands. */
export async function descendantsPss(root: number): Promise<number> {
  const table = await processes();
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let total = 0;
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    total += await pssOf(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Pss of the containerd shims that run the given containers (their command line names the id). */
export async function shimsPss(containerIds: readonly string[]): Promise<number> {
  let total = 0;
  for (const [pid, { cmdline }] of await processes()) {
    if (cmdline.includes('containerd-shim') && containerIds.some((id) => cmdline.includes(id)))
      total += await pssOf(pid);
  }
  return total;
}
