// Output that arrives in the same read as the event that changes who may see it is not lost: a live
// line right behind the answer to an adopt (the connection), and a command's output that is still in its
// stream when its exit is already known (the job). The "runtime" here is a pair of pipes the test writes
// frames into, so each case happens every time instead of now and then.
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Job } from '../../src/jobs/job.js';
import { JobLog } from '../../src/jobs/job-log.js';
import { RuntimeConnection } from '../../src/runtime/connection.js';
import { encodeFrame, FrameReader, type FrameHeader } from '../../src/runtime/protocol.js';
import { tempDir } from '../helpers/app.js';

/** A runtime process made of pipes: `answer` decides what the "runtime" writes back, as one chunk. */
function pipeRuntime(answer: (request: FrameHeader & { t: 'req' }) => Buffer | undefined) {
  const child = Object.assign(new EventEmitter(), {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    kill: () => true,
  });
  const reader = new FrameReader();
  child.stdin.on('data', (chunk: Buffer) => {
    for (const { header } of reader.push(chunk)) {
      if (header.t !== 'req') continue;
      const reply = answer(header);
      if (reply) child.stdout.write(reply);
    }
  });
  child.stdout.write(
    encodeFrame({ t: 'res', id: 0, ok: true, result: { ready: true, pid: 1, nextProc: 8 } }),
  );
  return child;
}

describe('output at the edges', () => {
  it(
    'keeps live output that follows the answer to an adopt in the same read',
    { timeout: 5000 },
    async () => {
      const child = pipeRuntime((request) => {
        if (request.op !== 'adopt') return undefined;
        return Buffer.concat([
          encodeFrame({ t: 'out', proc: 7, stream: 'stdout', replay: true }, Buffer.from('kept\n')),
          encodeFrame({ t: 'res', id: request.id, ok: true, result: {} }),
          encodeFrame({ t: 'out', proc: 7, stream: 'stdout' }, Buffer.from('live\n')),
          encodeFrame({ t: 'exit', proc: 7, exitCode: 0, signal: null }),
        ]);
      });
      const connection = new RuntimeConnection(child);
      await connection.ready;
      const seen: string[] = [];
      let exited!: () => void;
      const exit = new Promise<void>((resolve) => (exited = resolve));
      await connection.adopt(7, {
        output: (_stream, chunk) => seen.push(chunk.toString()),
        exit: (code) => {
          seen.push(`exit ${code}`);
          exited();
        },
      });
      await exit;
      expect(seen).toEqual(['kept\n', 'live\n', 'exit 0']);
    },
  );

  it('a job whose output and exit came before it listened still has all of that output', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.end('all of it\n');
    stderr.end('and this\n');
    const job = new Job({
      id: 'job_edge',
      sessionId: 'ses_edge',
      command: 'true',
      cwd: '.',
      process: {
        stdout,
        stderr,
        stdin: new PassThrough(),
        exited: Promise.resolve({ exitCode: 0, signal: null }),
        kill: () => undefined,
      },
      log: new JobLog(path.join(tempDir(), 'job.log'), 1 << 20),
      outputMaxBytes: 1 << 20,
      timeoutMs: 10_000,
      keepStdinOpen: false,
    });
    await job.done;
    expect(job.stdout.text()).toBe('all of it\n');
    expect(job.stderr.text()).toBe('and this\n');
    expect(job.log.bytes).toBe('all of it\nand this\n'.length);
  });
});
