// run_command: a shell command in the session's workspace, inside the command sandbox. Output streams
// as it arrives; the response carries the head and tail of stdout and stderr, the job log keeps it all.
// Long commands can go to the background (at once or after background_after_ms) and be followed with
// the job tools.
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import type { Job } from '../../jobs/job.js';
import { effectiveLimits, LimitsInput } from '../../runtime/runner/limits.js';
import type { SandboxBackend } from '../../runtime/runner/types.js';
import { JobSummary, jobSummary } from '../../jobs/job-view.js';

const MAX_TIMEOUT_MS = 600_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_ENV_ENTRIES = 100;

const Input = Type.Object(
  {
    command: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description: 'Shell command, run with bash -c in the workspace (pipes, &&, redirects work)',
    }),
    cwd: Type.String({ default: '.', description: 'Working directory, relative to the workspace root' }),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: MAX_TIMEOUT_MS,
        description:
          'Kill the command (and everything it started) after this long; also bounds background jobs. ' +
          "Default: the server's limits.commandTimeoutMs (120000 unless configured)",
      }),
    ),
    idle_timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: MAX_TIMEOUT_MS,
        description: 'Kill the command when it prints nothing for this long',
      }),
    ),
    background: Type.Boolean({
      default: false,
      description:
        'Return a job id at once; follow it with job_output / job_wait, write to it with job_input',
    }),
    background_after_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TIMEOUT_MS,
        description: 'If still running after this long, leave it running as a job and return its id',
      }),
    ),
    env: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 32_768 }), {
        description: 'Extra environment variables (the environment is otherwise clean: PATH, HOME, LANG)',
      }),
    ),
    stdin: Type.Optional(Type.String({ maxLength: 10_000_000, description: 'Text written to stdin' })),
    limits: Type.Optional(LimitsInput),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  jobId: Type.String({ description: 'The job holding the full output log (job_output reads it)' }),
  status: Type.Enum(['running', 'exited', 'killed']),
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  signal: Type.Union([Type.String(), Type.Null()]),
  stdout: Type.String(),
  stderr: Type.String(),
  durationMs: Type.Integer(),
  timedOut: Type.Boolean(),
  truncated: Type.Boolean({ description: 'stdout or stderr was cut to head and tail' }),
  background: Type.Boolean({ description: 'Still running as a job' }),
  job: JobSummary,
  sandbox: Type.Object({
    backend: Type.Enum(['bwrap', 'none', 'docker', 'kubernetes']),
    isolated: Type.Boolean({ description: 'false: the command ran unsandboxed on the host' }),
  }),
});

function checkEnv(env: Record<string, string> | undefined): Record<string, string> {
  if (!env) return {};
  const entries = Object.entries(env);
  if (entries.length > MAX_ENV_ENTRIES) {
    throw toolgateError('VALIDATION_FAILED', `env has ${entries.length} entries; at most ${MAX_ENV_ENTRIES}`);
  }
  for (const [name, value] of entries) {
    if (!ENV_NAME.test(name) || value.includes('\0')) {
      throw toolgateError(
        'VALIDATION_FAILED',
        `Invalid environment variable ${JSON.stringify(name.slice(0, 130))}`,
        {
          suggestion: 'Names are letters, digits and _, not starting with a digit; values contain no NUL.',
        },
      );
    }
  }
  return env;
}

export default defineTool({
  name: 'run_command',
  category: 'execution',
  description:
    'Run a shell command (bash -c) in the workspace and return its exit code, stdout and stderr. ' +
    'The command runs in a sandbox: only the workspace is writable (it is the current directory); the ' +
    'network, when the session has it, only through an egress proxy (HTTP_PROXY etc. are set; refusals ' +
    'are a 403 naming the rule); limits on CPU, memory, processes and file size. ' +
    'timeout_ms (default 120000, max 600000) ' +
    'kills it with everything it started. Long output keeps its head and tail; job_output reads the rest. ' +
    'For servers or long builds use background: true (or background_after_ms) and then job_output, job_wait, ' +
    'job_input, job_kill.',
  capabilities: { executesCommands: true, readsFiles: true, writesFiles: true, destructive: true },
  input: Input,
  output: Output,
  examples: [
    { command: 'npm test', cwd: '.', timeout_ms: 120_000, background: false },
    { command: 'npm run dev', cwd: '.', timeout_ms: 600_000, background: true },
  ],
  // An upper bound for the pipeline; the command itself is killed at its own (possibly configured) timeout.
  timeoutMs: (input) =>
    input.background
      ? undefined
      : Math.min(input.timeout_ms ?? MAX_TIMEOUT_MS, input.background_after_ms ?? MAX_TIMEOUT_MS),
  async execute(input, ctx) {
    const { runner, jobs } = ctx.services;
    const timeoutMs = Math.min(
      input.timeout_ms ?? ctx.limits.commandTimeoutMs,
      ctx.limits.commandMaxTimeoutMs,
    );
    // The runtime resolves and checks cwd itself, in the same place it starts the command.
    const job = await jobs.start({
      sessionId: ctx.session.id,
      runtime: ctx.workspace.runtime,
      command: input.command,
      cwd: input.cwd,
      env: checkEnv(input.env),
      limits: effectiveLimits(timeoutMs, input.limits),
      timeoutMs,
      idleTimeoutMs: input.idle_timeout_ms,
      stdin: input.stdin,
      keepStdinOpen: input.background,
    });
    const result = (detached: boolean) =>
      commandResult(job, detached, runner.status.backend ?? 'none', runner.status.isolated);
    if (input.background) return result(true);

    const unsubscribe = job.onOutput((chunk) => ctx.emit(chunk));
    // Timeout of the call, client gone, shutdown: a foreground command never outlives its caller.
    const cancel = () => job.kill('cancelled');
    ctx.signal.addEventListener('abort', cancel, { once: true });
    if (ctx.signal.aborted) cancel();
    try {
      const ended =
        input.background_after_ms === undefined
          ? await job.done.then(() => true)
          : await job.wait(input.background_after_ms);
      return result(!ended);
    } finally {
      unsubscribe();
      ctx.signal.removeEventListener('abort', cancel);
    }
  },
  render(data) {
    const head = data.background
      ? `Running in the background as ${data.jobId}; follow it with job_output or job_wait.`
      : data.status === 'killed'
        ? `Killed (${data.job.killReason}${data.signal ? `, ${data.signal}` : ''}) after ${data.durationMs} ms`
        : `Exit code ${data.exitCode ?? data.signal} after ${data.durationMs} ms`;
    const parts = [head + (data.sandbox.isolated ? '' : ' [unsandboxed]')];
    if (data.stdout) parts.push(`stdout:\n${data.stdout}`);
    if (data.stderr) parts.push(`stderr:\n${data.stderr}`);
    if (data.truncated) parts.push(`(output cut; job_output with job_id ${data.jobId} reads all of it)`);
    return parts.join('\n');
  },
});

function commandResult(job: Job, detached: boolean, backend: SandboxBackend, isolated: boolean) {
  return {
    jobId: job.id,
    status: job.status,
    exitCode: job.exit?.exitCode ?? null,
    signal: job.exit?.signal ?? null,
    stdout: job.stdout.text(),
    stderr: job.stderr.text(),
    durationMs: job.durationMs,
    timedOut: job.timedOut,
    truncated: job.stdout.truncated || job.stderr.truncated,
    background: detached && job.running,
    job: jobSummary(job),
    sandbox: { backend, isolated },
  };
}
