// Code kernels: a persistent interpreter per session and kernel name, held by the runtime between calls
// (run_code). Python is an ipykernel driven through jupyter_client inside the runtime.
import type { ResourceLimits } from '../runner/types.js';

/** A file a cell's rich output was saved as (charts), in the workspace. */
export interface KernelFile {
  readonly path: string;
  readonly mimeType: string;
  readonly bytes: number;
  /** The content, base64, when it is small enough to hand to a client as an image. */
  readonly base64?: string;
}

/** One output of a cell, in the order the kernel sent them. */
export type KernelOutput =
  | { readonly type: 'stream'; readonly name: 'stdout' | 'stderr'; readonly text: string }
  | {
      readonly type: 'result' | 'display';
      /** text/plain, text/markdown, text/html, application/json… as the kernel sent them. */
      readonly text?: string;
      readonly html?: string;
      readonly markdown?: string;
      readonly json?: unknown;
      files: KernelFile[];
      /** Every mime type the kernel offered, including those not returned. */
      mimeTypes: string[];
    }
  | {
      readonly type: 'error';
      readonly ename: string;
      readonly evalue: string;
      /** Escape sequences removed. */
      readonly traceback: string;
    };

export interface KernelBounds {
  readonly max: number;
  readonly idleMs: number;
  /** Most bytes of text output kept per cell (the end is cut). */
  readonly outputMaxBytes: number;
  /** Images up to this size travel base64 in the answer too (0: never). */
  readonly inlineImageBytes: number;
}

export interface KernelRunResult {
  readonly kernel: string;
  /** ok; error (the cell raised); timeout (interrupted at timeoutMs); interrupted (kernel_interrupt);
   *  dead (the kernel died, e.g. out of memory: the next cell starts a new one). */
  readonly status: 'ok' | 'error' | 'timeout' | 'interrupted' | 'dead';
  readonly executionCount: number | null;
  outputs: KernelOutput[];
  /** The kernel was started for this cell, in this many milliseconds. */
  readonly startedMs?: number;
  /** The timeout could not interrupt the cell: the kernel was restarted, its state lost. */
  readonly restarted?: boolean;
  readonly truncated: boolean;
}

export interface KernelInfo {
  readonly name: string;
  readonly language: 'python';
  readonly pid: number | null;
  readonly busy: boolean;
  readonly executions: number;
  readonly startedAt: string;
  readonly lastUsedAt: string;
}

export interface KernelOps {
  kernelRun: {
    args: {
      readonly name: string;
      readonly language: 'python';
      readonly code: string;
      readonly timeoutMs: number;
      readonly limits: ResourceLimits;
      readonly env: Readonly<Record<string, string>>;
      readonly bounds: KernelBounds;
    };
    result: KernelRunResult;
  };
  kernelInterrupt: { args: { readonly name: string }; result: { name: string; wasBusy: boolean } };
  kernelRestart: { args: { readonly name: string }; result: { name: string; startedMs: number } };
  kernelClose: { args: { readonly name: string }; result: { name: string } };
  kernelList: { args: Record<string, never>; result: { kernels: KernelInfo[] } };
}
