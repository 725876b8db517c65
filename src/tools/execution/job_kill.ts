// job_kill: stops a job and everything it started; its log stays readable.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { JobIdInput, jobLine, JobSummary, jobSummary } from '../../jobs/job-view.js';

const Input = Type.Object({ job_id: JobIdInput }, { additionalProperties: false });

const Output = Type.Object({
  killed: Type.Boolean({ description: 'false when the job had already ended' }),
  job: JobSummary,
});

export default defineTool({
  name: 'job_kill',
  category: 'execution',
  description: 'Stop a running job and every process it started. Its output stays readable with job_output.',
  capabilities: { executesCommands: true, destructive: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ job_id: 'job_AbC123' }],
  async execute(input, ctx) {
    await ctx.services.jobs.settled(ctx.session.id);
    const job = ctx.services.jobs.get(ctx.session.id, input.job_id);
    const killed = job.running;
    job.kill('killed');
    await job.done;
    return { killed, job: jobSummary(job) };
  },
  render: (data) => (data.killed ? 'Killed ' : 'Already ended: ') + jobLine(data.job),
});
