// The kernel operations: the runtime's kernels by name, at most `bounds.max`, each closed when unused for
// `bounds.idleMs`. A cell past its timeout is interrupted (SIGINT, a KeyboardInterrupt in Python); one
// that does not stop within KILL_AFTER_MS of that has its kernel restarted.
import { toolgateError } from '../../../lib/errors.js';
import type { KernelOps } from '../../ops/kernels.js';
import { reply, type Handlers, type OpContext } from '../handler.js';
import { PythonKernel, type KernelStart } from './kernel.js';
import { convertOutputs } from './outputs.js';

/** How long an interrupted cell may take to stop before its kernel is restarted. */
const KILL_AFTER_MS = 5000;

export interface KernelSetup {
  readonly shell: string;
  readonly processLimit: boolean;
  readonly proxyEnv: Readonly<Record<string, string>>;
}

export function kernelHandlers(setup: KernelSetup): {
  handlers: Handlers<KernelOps>;
  closeAll(): Promise<void>;
} {
  const kernels = new Map<string, PythonKernel>();
  let idleMs = 0;
  let sweep: NodeJS.Timeout | undefined;

  const armSweep = () => {
    if (sweep || kernels.size === 0 || idleMs <= 0) return;
    sweep = setTimeout(
      () => {
        sweep = undefined;
        const now = Date.now();
        for (const kernel of kernels.values())
          if (!kernel.busy && now - kernel.lastUsedAt >= idleMs) void close(kernel.name);
        armSweep();
      },
      Math.min(idleMs, 60_000),
    );
    sweep.unref();
  };

  const close = async (name: string) => {
    const kernel = kernels.get(name);
    if (!kernel) return;
    kernels.delete(name);
    await kernel.stop();
  };

  const find = (name: string): PythonKernel => {
    const kernel = kernels.get(name);
    if (!kernel)
      throw toolgateError('NOT_FOUND', `No kernel ${name}`, {
        suggestion: 'run_code starts a kernel; kernel_list shows the running ones.',
      });
    return kernel;
  };

  async function open(
    args: KernelOps['kernelRun']['args'],
    ctx: OpContext,
  ): Promise<{ kernel: PythonKernel; startedMs?: number }> {
    const existing = kernels.get(args.name);
    if (existing?.alive) return { kernel: existing };
    if (!existing && kernels.size >= args.bounds.max)
      throw toolgateError(
        'TOO_MANY_KERNELS',
        `This session has ${kernels.size} kernels, the most it may have`,
        {
          suggestion: 'Close one with kernel_close (kernel_list shows them).',
        },
      );
    const start: KernelStart = {
      cwd: ctx.paths.root,
      env: { ...setup.proxyEnv, ...args.env },
      limits: args.limits,
      shell: setup.shell,
      processLimit: setup.processLimit,
    };
    // A kernel that died (out of memory, os._exit) is replaced by the next cell, which says so (startedMs).
    const kernel = new PythonKernel(args.name, start);
    kernels.set(args.name, kernel);
    try {
      return { kernel, startedMs: await kernel.start() };
    } catch (err) {
      kernels.delete(args.name);
      await kernel.stop();
      throw err;
    }
  }

  const handlers: Handlers<KernelOps> = {
    async kernelRun(args, _payload, ctx) {
      idleMs = args.bounds.idleMs;
      const { kernel, startedMs } = await open(args, ctx);
      armSweep();
      const running = kernel.run(args.code);
      let restarted = false;
      const stop = (reason: 'timeout' | 'interrupted') => {
        if (!kernel.interrupt(reason)) return;
        // An interrupt the cell ignores (C code holding the GIL, a handler that swallows it): restart.
        killer = setTimeout(() => {
          restarted = true;
          void kernel.stop();
        }, KILL_AFTER_MS);
      };
      let killer: NodeJS.Timeout | undefined;
      const timer = setTimeout(() => stop('timeout'), args.timeoutMs);
      const onAbort = () => stop('interrupted');
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const answer = await running.finally(() => {
        clearTimeout(timer);
        clearTimeout(killer);
        ctx.signal.removeEventListener('abort', onAbort);
      });
      if (restarted) kernels.delete(args.name);
      const count = answer.count ?? null;
      const { outputs, truncated } = await convertOutputs(answer.outputs, args.name, count, args.bounds, ctx);
      const status = answer.status === 'dead' ? 'dead' : (kernel.stopReason ?? answer.status);
      if (answer.status === 'dead') kernels.delete(args.name);
      return reply({
        kernel: args.name,
        status,
        executionCount: count,
        outputs,
        ...(startedMs !== undefined ? { startedMs } : {}),
        ...(restarted ? { restarted } : {}),
        truncated,
      });
    },
    kernelInterrupt({ name }) {
      return reply({ name, wasBusy: find(name).interrupt('interrupted') });
    },
    async kernelRestart({ name }) {
      const old = find(name);
      await old.stop();
      const kernel = new PythonKernel(name, old.setup);
      kernels.set(name, kernel);
      try {
        return reply({ name, startedMs: await kernel.start() });
      } catch (err) {
        kernels.delete(name);
        throw err;
      }
    },
    async kernelClose({ name }) {
      find(name);
      await close(name);
      return reply({ name });
    },
    kernelList() {
      return reply({
        kernels: [...kernels.values()].map((kernel) => ({
          name: kernel.name,
          language: 'python' as const,
          pid: kernel.pid,
          busy: kernel.busy,
          executions: kernel.executions,
          startedAt: kernel.startedAt.toISOString(),
          lastUsedAt: new Date(kernel.lastUsedAt).toISOString(),
        })),
      });
    },
  };
  return {
    handlers,
    async closeAll() {
      await Promise.all([...kernels.keys()].map(close));
    },
  };
}
