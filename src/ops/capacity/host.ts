// What the host has left of the resources a new session costs: memory available (MemAvailable: what the
// kernel can give without swapping, page cache it can drop included) and free process ids. Read from
// /proc at admission time; on a system without /proc, each reads as unlimited (nothing to refuse on).
import { readFile } from 'node:fs/promises';
import os from 'node:os';

export interface HostResources {
  totalMemoryBytes: number;
  availableMemoryBytes: number;
  /** Tasks (threads included, what pid_max bounds) that exist now, and how many may. */
  tasks: number;
  maxTasks: number;
}

const readNumber = async (file: string): Promise<number | undefined> => {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const value = text === undefined ? NaN : Number(text.trim());
  return Number.isFinite(value) ? value : undefined;
};

async function availableMemory(): Promise<number> {
  const meminfo = await readFile('/proc/meminfo', 'utf8').catch(() => '');
  const match = /^MemAvailable:\s+(\d+)\s*kB/m.exec(meminfo);
  return match ? Number(match[1]) * 1024 : os.freemem();
}

/** `/proc/loadavg`'s fourth field is "runnable/existing" scheduling entities: every thread of the host. */
async function taskCount(): Promise<number> {
  const loadavg = await readFile('/proc/loadavg', 'utf8').catch(() => '');
  const match = /\s\d+\/(\d+)\s/.exec(loadavg);
  return match ? Number(match[1]) : 0;
}

export async function hostResources(): Promise<HostResources> {
  const [availableMemoryBytes, tasks, pidMax, threadsMax] = await Promise.all([
    availableMemory(),
    taskCount(),
    readNumber('/proc/sys/kernel/pid_max'),
    readNumber('/proc/sys/kernel/threads-max'),
  ]);
  return {
    totalMemoryBytes: os.totalmem(),
    availableMemoryBytes,
    tasks,
    maxTasks: Math.min(pidMax ?? Infinity, threadsMax ?? Infinity),
  };
}
