// One Python kernel inside the runtime: the driver (python-driver.ts) and the ipykernel it started, under
// the session's rlimits (ulimit in the shell that execs the driver; the kernel inherits them). One cell
// at a time; an interrupt is SIGINT to the kernel, a restart ends both processes and starts them again.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { toolgateError } from '../../../lib/errors.js';
import type { ResourceLimits } from '../../runner/types.js';
import { PYTHON_DRIVER } from './python-driver.js';

/** A cell's answer as the driver sends it (outputs still as Jupyter bundles). */
export interface DriverAnswer {
  readonly id: number;
  readonly status: 'ok' | 'error' | 'dead';
  readonly count?: number | null;
  readonly outputs: ReadonlyArray<Record<string, unknown>>;
}

export interface KernelStart {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly limits: ResourceLimits;
  readonly shell: string;
  readonly processLimit: boolean;
}

const signal = (target: number, name: NodeJS.Signals) => {
  try {
    process.kill(target, name);
  } catch {
    // ESRCH: already gone.
  }
};

export class PythonKernel {
  private driver: ChildProcess | undefined;
  private kernelPid: number | null = null;
  private pending = new Map<number, (answer: DriverAnswer) => void>();
  private nextId = 1;
  private stderrTail = '';
  busy = false;
  /** Set by an interrupt or a timeout while a cell runs: how that cell's answer is reported. */
  stopReason: 'interrupted' | 'timeout' | undefined;
  executions = 0;
  startedAt = new Date();
  lastUsedAt = Date.now();

  constructor(
    readonly name: string,
    readonly setup: KernelStart,
  ) {}

  get pid(): number | null {
    return this.kernelPid;
  }

  /** Starts driver and kernel; resolves once the kernel answers, with how long that took. */
  async start(): Promise<number> {
    const began = performance.now();
    const { limits } = this.setup;
    const ulimits = [
      `-v ${Math.floor(limits.memoryBytes / 1024)}`,
      `-f ${Math.floor(limits.fileSizeBytes / 1024)}`,
      `-n ${limits.openFiles}`,
      ...(this.setup.processLimit ? [`-u ${limits.maxProcesses}`] : []),
    ].join(' ');
    // The connection file, the kernel's sockets and matplotlibrc: removed here when the driver exits,
    // since stop() kills it with SIGKILL and its own clean-up never runs.
    const scratch = mkdtempSync(path.join(tmpdir(), 'toolgate-kernel-'));
    const driver = spawn(
      this.setup.shell,
      ['-c', `ulimit ${ulimits} || exit 126; exec python3 -c "$1"`, 'bash', PYTHON_DRIVER],
      {
        cwd: this.setup.cwd,
        env: {
          PYTHONUNBUFFERED: '1',
          PYDEVD_DISABLE_FILE_VALIDATION: '1',
          MPLCONFIGDIR: '/tmp/.toolgate-matplotlib',
          ...this.setup.env,
          TOOLGATE_KERNEL_SCRATCH: scratch,
        },
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    this.driver = driver;
    this.startedAt = new Date();
    driver.stdin!.on('error', () => undefined);
    driver.once('error', () => undefined);
    driver.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
    driver.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    const lines = createInterface({ input: driver.stdout! });
    const ready = new Promise<number | null>((resolve, reject) => {
      lines.on('line', (line) => {
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return;
        }
        if (message.ready) resolve(typeof message.pid === 'number' ? message.pid : null);
        else if (typeof message.failed === 'string') reject(unavailable(message.failed));
        else if (typeof message.id === 'number') {
          const answer = this.pending.get(message.id);
          this.pending.delete(message.id);
          answer?.(message as unknown as DriverAnswer);
        }
      });
      driver.once('exit', (code) => {
        reject(unavailable(code === 127 ? 'python3 is not installed here' : this.why(code)));
        for (const answer of this.pending.values()) answer({ id: 0, status: 'dead', outputs: [] });
        this.pending.clear();
        this.busy = false;
        if (this.driver === driver) this.driver = undefined;
      });
    });
    this.kernelPid = await ready;
    return Math.round(performance.now() - began);
  }

  private why(code: number | null): string {
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return `the kernel driver exited (${code ?? 'signal'})${tail ? `: ${tail}` : ''}`;
  }

  get alive(): boolean {
    return this.driver !== undefined && this.driver.exitCode === null;
  }

  /** Runs one cell; answered when the kernel is idle again (or died). */
  run(code: string): Promise<DriverAnswer> {
    if (!this.alive) return Promise.resolve({ id: 0, status: 'dead', outputs: [] });
    if (this.busy)
      throw toolgateError('KERNEL_BUSY', `Kernel ${this.name} is running a cell`, {
        suggestion: 'Wait for it, or stop it with kernel_interrupt.',
      });
    this.busy = true;
    this.stopReason = undefined;
    this.executions++;
    this.lastUsedAt = Date.now();
    const id = this.nextId++;
    return new Promise<DriverAnswer>((resolve) => {
      this.pending.set(id, (answer) => {
        this.busy = false;
        this.lastUsedAt = Date.now();
        resolve(answer);
      });
      this.driver!.stdin!.write(`${JSON.stringify({ id, code })}\n`);
    });
  }

  interrupt(reason: 'interrupted' | 'timeout'): boolean {
    if (!this.busy || this.kernelPid === null) return false;
    this.stopReason ??= reason;
    signal(this.kernelPid, 'SIGINT');
    return true;
  }

  /** Ends kernel and driver (the kernel is in its own session, so each is killed by itself). */
  async stop(): Promise<void> {
    const driver = this.driver;
    if (this.kernelPid !== null) signal(this.kernelPid, 'SIGKILL');
    this.kernelPid = null;
    if (!driver || driver.exitCode !== null || driver.signalCode !== null) return;
    const exited = new Promise((resolve) => driver.once('exit', resolve));
    if (driver.pid !== undefined) signal(-driver.pid, 'SIGKILL');
    await exited;
  }
}

const unavailable = (why: string) =>
  toolgateError('KERNEL_UNAVAILABLE', `No Python kernel could start in this runtime: ${why}`, {
    suggestion:
      'The runtime needs python3 with ipykernel and jupyter_client (the python runtime image has them; ' +
      'on the bwrap backend, the host: apt-get install python3-ipykernel python3-jupyter-client).',
  });
