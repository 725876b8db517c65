// job_list: this session's jobs, running and recently finished.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { jobLine, JobSummary, jobSummary } from '../../jobs/job-view.js';

const Input = Type.Object(
  {
    running_only: Type.Boolean({ default: false, description: 'Only jobs still running' }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({ jobs: Type.Array(JobSummary) });

export default defineTool({
  name: 'job_list',
  category: 'execution',
  description: "List this session's commands: background jobs and recent run_command calls, oldest first.",
  capabilities: { idempotent: true },
  input: Input,
  output: Output,
  examples: [{ running_only: true }],
  async execute(input, ctx) {
    await ctx.services.jobs.settled(ctx.session.id);
    const jobs = ctx.services.jobs.list(ctx.session.id).filter((job) => !input.running_only || job.running);
    return { jobs: jobs.map(jobSummary) };
  },
  render: (data) => (data.jobs.length ? data.jobs.map(jobLine).join('\n') : 'No jobs'),
});
