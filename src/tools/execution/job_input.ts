// job_input: writes to a background job's stdin, optionally closing it (EOF).
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { JobIdInput } from '../../jobs/job-view.js';

const Input = Type.Object(
  {
    job_id: JobIdInput,
    input: Type.String({
      maxLength: 1_000_000,
      default: '',
      description: 'Text to write (add "\\n" for a line)',
    }),
    close_stdin: Type.Boolean({
      default: false,
      description: 'Close stdin after writing (the command sees EOF)',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  jobId: Type.String(),
  bytesWritten: Type.Integer(),
  stdinOpen: Type.Boolean(),
});

export default defineTool({
  name: 'job_input',
  category: 'execution',
  description:
    "Write text to a running background job's stdin (jobs started with background: true keep stdin open). " +
    'close_stdin: true sends EOF.',
  capabilities: { executesCommands: true },
  input: Input,
  output: Output,
  examples: [{ job_id: 'job_AbC123', input: 'yes\n', close_stdin: false }],
  async execute(input, ctx) {
    await ctx.services.jobs.settled(ctx.session.id);
    const job = ctx.services.jobs.get(ctx.session.id, input.job_id);
    if (!job.running || !job.stdinOpen) {
      throw toolgateError('CONFLICT', `Job ${job.id} ${job.running ? 'has its stdin closed' : 'has ended'}`, {
        suggestion: 'Only jobs started with background: true take input, until close_stdin.',
      });
    }
    if (input.input) job.write(input.input);
    if (input.close_stdin) job.closeStdin();
    return { jobId: job.id, bytesWritten: Buffer.byteLength(input.input), stdinOpen: job.stdinOpen };
  },
  render: (data) =>
    `Wrote ${data.bytesWritten} bytes to ${data.jobId}${data.stdinOpen ? '' : '; stdin closed'}`,
});
