// job_output: a job's log (stdout and stderr interleaved) from a byte offset; nextOffset is the cursor
// for the next read, so a slow reader loses nothing while the job runs and after it ends.
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { JobIdInput, jobLine, JobSummary, jobSummary } from '../../jobs/job-view.js';

const Input = Type.Object(
  {
    job_id: JobIdInput,
    offset: Type.Integer({ minimum: 0, default: 0, description: 'Byte offset to read from (a nextOffset)' }),
    limit_bytes: Type.Integer({
      minimum: 1,
      maximum: 4 * 1024 * 1024,
      default: 65_536,
      description: 'Most bytes to return (also capped by the server output limit)',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  job: JobSummary,
  output: Type.String(),
  offset: Type.Integer(),
  nextOffset: Type.Integer({ description: 'Pass as offset to continue' }),
  totalBytes: Type.Integer({ description: 'Bytes in the log so far' }),
  complete: Type.Boolean({ description: 'The job has ended and everything has been read' }),
});

export default defineTool({
  name: 'job_output',
  category: 'execution',
  description:
    "Read a job's output log (stdout and stderr interleaved, as printed) from a byte offset. " +
    'Call again with offset: nextOffset to continue; complete is true when the job has ended and all is read.',
  capabilities: { idempotent: true },
  input: Input,
  output: Output,
  examples: [{ job_id: 'job_AbC123', offset: 0, limit_bytes: 65_536 }],
  async execute(input, ctx) {
    await ctx.services.jobs.settled(ctx.session.id);
    const job = ctx.services.jobs.get(ctx.session.id, input.job_id);
    if (input.offset > job.log.bytes) {
      throw toolgateError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${input.offset} is past the end of the log (${job.log.bytes} bytes)`,
        {
          suggestion: `Use an offset from 0 to ${job.log.bytes}.`,
        },
      );
    }
    const ended = !job.running;
    const slice = await job.log.read(
      input.offset,
      Math.min(input.limit_bytes, ctx.limits.outputMaxBytes),
      ended,
    );
    return {
      job: jobSummary(job),
      output: slice.text,
      offset: slice.offset,
      nextOffset: slice.nextOffset,
      totalBytes: job.log.bytes,
      complete: ended && slice.nextOffset >= job.log.bytes,
    };
  },
  render: (data) =>
    `${jobLine(data.job)}\n${data.output}${data.complete ? '' : `\n(more: offset ${data.nextOffset} of ${data.totalBytes} bytes so far)`}`,
});
