// One persistent bash inside the runtime: started once, fed one command at a time (shell-script.ts says
// how), each command's output passed on as it comes, its status and the shell's cwd read back at its
// end. A timeout interrupts the command as a terminal's Ctrl-C would and keeps the shell; a shell that
// exits (`exit`, a signal, its CPU limit) stays dead until it is restarted or closed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { toolgateError } from '../../../lib/errors.js';
import type { ResourceLimits } from '../../runner/types.js';
import { shellDead, type ShellExecResult, type ShellInfo } from '../../ops/shells.js';
import { commandLine, markerOf, prologue } from './shell-script.js';
import { childGroups, groupsOfSession, signalGroup } from './process-groups.js';
import { MarkerSplitter } from './marker-splitter.js';

/** After SIGINT, how long the command has before SIGKILL; after that, how long before the shell is killed. */
const INTERRUPT_GRACE_MS = 1000;
/** Output kept for shell_list and the console: the last bytes of the last command. */
const LAST_OUTPUT_BYTES = 2048;
/** Output printed between commands (background jobs) is held for the next command, up to this much. */
const BETWEEN_MAX_BYTES = 64 * 1024;

export interface ShellStart {
  readonly name: string;
  readonly bash: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly limits: ResourceLimits;
  readonly processLimit: boolean;
  /** The cwd as callers see it (workspace-relative when inside it). */
  readonly showPath: (absolute: string) => string;
}

type Output = (stream: 'stdout' | 'stderr', chunk: Buffer) => void;

interface Running {
  readonly nonce: string;
  readonly began: number;
  readonly output: Output;
  readonly before: Set<number>;
  status?: { code: number; cwd: string };
  ended: { stdout: boolean; stderr: boolean };
  timedOut: boolean;
  finish(result: ShellExecResult): void;
}

export class PersistentShell {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly startedAt = Date.now();
  lastUsedAt = Date.now();
  commands = 0;
  lastCommand: string | undefined;
  lastExitCode: number | null | undefined;
  private lastOutput = Buffer.alloc(0);
  private cwd: string;
  private deadReason: string | undefined;
  private running: Running | undefined;
  private between: Buffer[] = [];
  private betweenBytes = 0;
  private statusText = '';
  private readonly splitters = { stdout: new MarkerSplitter(), stderr: new MarkerSplitter() };
  private readonly ready: Promise<void>;
  private readyAt: ((cwd: string) => void) | undefined;

  private constructor(private readonly start: ShellStart) {
    this.cwd = start.showPath(start.cwd);
    this.child = spawn(start.bash, ['--noprofile', '--norc', '-s'], {
      cwd: start.cwd,
      env: { ...start.env },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    if (this.child.pid === undefined) throw toolgateError('TOOL_FAILED', 'The shell could not be started');
    this.pid = this.child.pid;
    this.ready = new Promise<void>((resolve, reject) => {
      this.readyAt = (cwd) => {
        this.cwd = start.showPath(cwd);
        resolve();
      };
      this.child.once('exit', () => reject(toolgateError('TOOL_FAILED', `The shell exited at start`)));
    });
    this.ready.catch(() => undefined);
    this.child.stdin!.on('error', () => undefined);
    this.child.once('error', () => undefined);
    for (const stream of ['stdout', 'stderr'] as const)
      this.child[stream]!.on('data', (chunk: Buffer) => this.onOutput(stream, chunk));
    (this.child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => this.onStatus(chunk));
    this.child.once('exit', (code, signal) => this.onExit(code, signal));
    this.child.stdin!.write(prologue(start.limits, start.processLimit));
  }

  static async open(start: ShellStart): Promise<PersistentShell> {
    const shell = new PersistentShell(start);
    await shell.ready;
    return shell;
  }

  get state(): ShellInfo['state'] {
    if (this.deadReason !== undefined) return 'dead';
    return this.running ? 'busy' : 'idle';
  }

  info(): ShellInfo {
    return {
      name: this.start.name,
      state: this.state,
      pid: this.pid,
      cwd: this.cwd,
      startedAt: this.startedAt,
      lastUsedAt: this.lastUsedAt,
      commands: this.commands,
      ...(this.lastCommand !== undefined ? { lastCommand: this.lastCommand.slice(0, 500) } : {}),
      ...(this.lastExitCode !== undefined ? { lastExitCode: this.lastExitCode } : {}),
      ...(this.lastOutput.length > 0 ? { lastOutput: this.lastOutput.toString('utf8') } : {}),
      ...(this.deadReason !== undefined ? { deadReason: this.deadReason } : {}),
    };
  }

  /** Runs one command; output goes to `output` as it comes. Throws SHELL_BUSY or SHELL_DEAD. */
  exec(command: string, timeoutMs: number, output: Output, signal: AbortSignal): Promise<ShellExecResult> {
    if (this.deadReason !== undefined) throw shellDead(this.start.name, this.deadReason);
    if (this.running) {
      throw toolgateError('SHELL_BUSY', `Shell ${this.start.name} is running a command`, {
        suggestion:
          'One command at a time per shell: wait for it to end (its timeout_ms bounds it), or open another shell with shell_open.',
      });
    }
    const nonce = randomBytes(12).toString('hex');
    this.lastUsedAt = Date.now();
    this.commands++;
    this.lastCommand = command;
    this.lastOutput = Buffer.alloc(0);
    const kept: Output = (stream, chunk) => {
      this.keepLast(chunk);
      output(stream, chunk);
    };
    for (const chunk of this.between) kept('stdout', chunk);
    this.between = [];
    this.betweenBytes = 0;
    return new Promise<ShellExecResult>((resolve) => {
      const timer = setTimeout(() => this.interrupt(), timeoutMs);
      const onAbort = () => this.interrupt();
      signal.addEventListener('abort', onAbort, { once: true });
      const running: Running = {
        nonce,
        began: performance.now(),
        output: kept,
        before: childGroups(this.pid),
        ended: { stdout: false, stderr: false },
        timedOut: false,
        finish: (result) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          this.running = undefined;
          this.lastUsedAt = Date.now();
          this.lastExitCode = result.exitCode;
          resolve(result);
        },
      };
      this.running = running;
      for (const splitter of Object.values(this.splitters)) splitter.expect(markerOf(nonce));
      this.child.stdin!.write(commandLine(nonce, command));
    });
  }

  /** Ctrl-C for the running command: SIGINT to the shell and the groups it made, then SIGKILL, then the shell. */
  private interrupt(): void {
    const running = this.running;
    if (!running || running.timedOut) return;
    running.timedOut = true;
    const commandGroups = () => [...groupsOfSession(this.pid)].filter((group) => !running.before.has(group));
    try {
      process.kill(this.pid, 'SIGINT'); // the shell itself: its trap stops the rest of the command line
    } catch {
      // gone already
    }
    for (const group of commandGroups()) signalGroup(group, 'SIGINT');
    setTimeout(() => {
      if (this.running !== running) return;
      for (const group of commandGroups()) signalGroup(group, 'SIGKILL');
      setTimeout(() => {
        if (this.running !== running) return;
        // Busy in itself (a loop of builtins that ignored the interrupt): the shell cannot be kept.
        this.kill(
          'it did not stop when its command timed out (a loop in the shell itself?), so it was killed',
        );
      }, INTERRUPT_GRACE_MS).unref();
    }, INTERRUPT_GRACE_MS).unref();
  }

  private onOutput(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const running = this.running;
    const { before, marked, after } = this.splitters[stream].push(chunk);
    if (before.length > 0) {
      if (running && !running.ended[stream]) running.output(stream, before);
      else this.holdBetween(before);
    }
    if (marked && running) {
      running.ended[stream] = true;
      if (after.length > 0) this.holdBetween(after);
      this.settle();
    }
  }

  private onStatus(chunk: Buffer): void {
    this.statusText += chunk.toString('utf8');
    const parts = this.statusText.split('\0');
    this.statusText = parts.pop()!;
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const [code, cwd] = [parts[i], parts[i + 1]];
      if (code === 'ready') this.readyAt?.(cwd);
      else if (this.running) {
        this.running.status = { code: Number(code), cwd };
        this.settle();
      }
    }
    // An odd token waits for its pair.
    if (parts.length % 2 === 1) this.statusText = `${parts[parts.length - 1]}\0${this.statusText}`;
  }

  private settle(): void {
    const running = this.running;
    if (!running?.status || !running.ended.stdout || !running.ended.stderr) return;
    this.cwd = this.start.showPath(running.status.cwd);
    running.finish({
      exitCode: running.status.code,
      cwd: this.cwd,
      timedOut: running.timedOut,
      shellDied: false,
      durationMs: Math.round(performance.now() - running.began),
    });
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.deadReason ??= signal ? `it was killed by ${signal}` : `it exited with code ${code}`;
    const running = this.running;
    if (!running) return;
    // What it printed last may still be in the pipes: a moment for it, then the command ends with the shell.
    setTimeout(() => {
      for (const stream of ['stdout', 'stderr'] as const) {
        const rest = this.splitters[stream].flush();
        if (rest.length > 0 && !running.ended[stream]) running.output(stream, rest);
      }
      running.finish({
        exitCode: code ?? running.status?.code ?? null,
        cwd: this.cwd,
        timedOut: running.timedOut,
        shellDied: true,
        durationMs: Math.round(performance.now() - running.began),
      });
    }, 50);
  }

  /** Kills the shell and every group of its session; it is dead from now on. */
  kill(reason: string): void {
    this.deadReason ??= reason;
    for (const group of groupsOfSession(this.pid)) signalGroup(group, 'SIGKILL');
    signalGroup(this.pid, 'SIGKILL');
  }

  private keepLast(chunk: Buffer): void {
    const joined = Buffer.concat([this.lastOutput, chunk]);
    this.lastOutput = joined.subarray(Math.max(0, joined.length - LAST_OUTPUT_BYTES));
  }

  private holdBetween(chunk: Buffer): void {
    if (this.betweenBytes + chunk.length > BETWEEN_MAX_BYTES) return;
    this.between.push(chunk);
    this.betweenBytes += chunk.length;
  }
}
