// The baseline of the read_file benches, run as a process of its own: a bare Fastify route that reads
// a file from BENCH_READ_DIR and answers with the same shape as toolgate's success envelope. No auth,
// no validation, no confinement, no audit: what a tool server costs with nothing of what toolgate adds.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';

const dir = process.env.BENCH_READ_DIR ?? process.cwd();
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
app.post<{ Body: { path: string } }>('/read', async (request) => {
  const content = await fs.readFile(path.join(dir, path.basename(request.body.path)), 'utf8');
  return { success: true, data: { path: request.body.path, content } };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
