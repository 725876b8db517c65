// job_wait: long-polls until a job ends or timeout_ms passes.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { JobIdInput, jobLine, JobSummary, jobSummary } from '../../jobs/job-view.js';

const Input = Type.Object(
  {
    job_id: JobIdInput,
    timeout_ms: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 30_000,
      description: 'Longest to wait; finished is false when the job is still running then',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  finished: Type.Boolean(),
  job: JobSummary,
});

export default defineTool({
  name: 'job_wait',
  category: 'execution',
  description:
    'Wait for a job to end, at most timeout_ms (default 30000). Returns its status and exit code; ' +
    'read what it printed with job_output.',
  capabilities: { idempotent: true },
  input: Input,
  output: Output,
  examples: [{ job_id: 'job_AbC123', timeout_ms: 30_000 }],
  timeoutMs: (input) => input.timeout_ms,
  async execute(input, ctx) {
    await ctx.services.jobs.settled(ctx.session.id);
    const job = ctx.services.jobs.get(ctx.session.id, input.job_id);
    const finished = await job.wait(input.timeout_ms, ctx.signal);
    return { finished, job: jobSummary(job) };
  },
  render: (data) => (data.finished ? '' : 'Still running: ') + jobLine(data.job),
});
