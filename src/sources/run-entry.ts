// Runs a tool's entry program inside the session runtime's sandbox, the way run_command runs a command
// (same namespace, rlimits, cgroup and environment): input JSON on stdin, result JSON on stdout. The
// documented failure shape is `{"error": {"message", "code"?, "suggestion"?}}` on stdout with a non-zero
// exit; anything else that is not JSON on a zero exit is a TOOL_FAILED naming what went wrong.
import type { ToolContext } from '../contract/context.js';
import { toolgateError } from '../lib/errors.js';
import { isJsonObject } from '../lib/json.js';
import { effectiveLimits } from '../runtime/runner/limits.js';

export interface EntryRequest {
  /** The shell command line (its words already quoted). */
  command: string;
  env: Record<string, string>;
  input: unknown;
  timeoutMs: number;
  /** The tool's name, for messages. */
  tool: string;
}

const STDERR_TAIL = 2000;

/** Reads a stream into a buffer, up to `max` bytes; past that, `over` is called once. */
async function collect(stream: NodeJS.ReadableStream, max: number, over: () => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size >= max) continue;
    size += chunk.length;
    chunks.push(chunk);
    if (size >= max) over();
  }
  return Buffer.concat(chunks).subarray(0, max);
}

export async function runEntry(ctx: ToolContext, request: EntryRequest): Promise<unknown> {
  const child = await ctx.workspace.runtime.spawn({
    command: request.command,
    cwd: '.',
    env: ctx.services.runner.commandEnv(request.env),
    limits: effectiveLimits(request.timeoutMs),
  });
  const kill = () => child.kill();
  ctx.signal.addEventListener('abort', kill, { once: true });
  let overflow = false;
  try {
    child.stdin.end(JSON.stringify(request.input));
    const maxBytes = ctx.limits.outputMaxBytes;
    const [stdout, stderr, exit] = await Promise.all([
      collect(child.stdout, maxBytes, () => {
        overflow = true;
        kill();
      }),
      collect(child.stderr, STDERR_TAIL * 4, () => undefined),
      child.exited,
    ]);
    // The pipeline's timeout (or the client leaving) killed it: the timeout step reports it.
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (overflow) {
      throw toolgateError('TOOL_FAILED', `${request.tool} printed more than ${maxBytes} bytes`, {
        suggestion: 'Ask for less at once (a smaller range, a filter).',
      });
    }
    return parseResult(
      request.tool,
      stdout.toString('utf8'),
      stderr.toString('utf8'),
      exit.exitCode,
      exit.signal,
    );
  } finally {
    ctx.signal.removeEventListener('abort', kill);
    child.kill();
  }
}

function parseResult(
  tool: string,
  stdout: string,
  stderr: string,
  exitCode: number | null,
  signal: string | null,
): unknown {
  let parsed: unknown;
  let parsedOk = false;
  try {
    parsed = JSON.parse(stdout);
    parsedOk = true;
  } catch {
    // reported below, with what the program said on stderr
  }
  const stderrTail = stderr.slice(-STDERR_TAIL).trim();
  if (exitCode === 0 && parsedOk) return parsed;
  if (
    parsedOk &&
    isJsonObject(parsed) &&
    isJsonObject(parsed.error) &&
    typeof parsed.error.message === 'string'
  ) {
    const { message, code, suggestion } = parsed.error;
    throw toolgateError('TOOL_FAILED', `${tool}: ${message}`, {
      ...(typeof suggestion === 'string' ? { suggestion } : {}),
      details: { ...(typeof code === 'string' ? { toolCode: code } : {}), exitCode },
    });
  }
  const how =
    exitCode === 0 ? 'printed no JSON result' : signal ? `was killed (${signal})` : `exited with ${exitCode}`;
  throw toolgateError('TOOL_FAILED', `${tool} ${how}${stderrTail ? `: ${stderrTail}` : ''}`, {
    suggestion: 'Check the input; if it looks right, the tool itself failed (tell the operator).',
    details: { exitCode, ...(signal ? { signal } : {}) },
  });
}
