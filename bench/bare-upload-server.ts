// The baseline of the upload bench, in a process of its own: a bare Fastify route that streams the
// request body to a file on disk (and fsyncs it, as toolgate's atomic upload does), nothing else.
// Prints its port on stdout.
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-bare-upload-'));
const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
app.put('/upload', async (request) => {
  const out = createWriteStream(path.join(dir, 'upload.bin'));
  let size = 0;
  await pipeline(
    request.body as NodeJS.ReadableStream,
    async function* (source) {
      for await (const chunk of source) {
        size += (chunk as Buffer).length;
        yield chunk;
      }
    },
    out,
  );
  const { promises: fs } = await import('node:fs');
  const handle = await fs.open(path.join(dir, 'upload.bin'), 'r+');
  await handle.sync();
  await handle.close();
  return { size };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(typeof address === 'object' && address ? address.port : 0);
