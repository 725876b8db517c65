import { ADMIN_KEY, callTool, startServer } from './lib.js';
const server = await startServer();
const session = await server.session({ profile: 'full' });
const call = (tool: string, input: object) => callTool(server.url, session, tool, input);
await call('run_command', { command: `for d in $(seq 1 100); do mkdir -p t/$d && head -c ${100 * 20480} /dev/urandom | split -b 20480 -d -a 4 - t/$d/f; done`, timeout_ms: 600_000 });
let t0 = performance.now();
await call('checkpoint_create', {});
console.log('first checkpoint', Math.round(performance.now() - t0));
for (let i = 0; i < 3; i++) {
  t0 = performance.now();
  await call('checkpoint_create', {});
  console.log('unchanged checkpoint', Math.round(performance.now() - t0));
}
for (let i = 0; i < 4; i++) {
  t0 = performance.now();
  const res = await fetch(`${server.url}/v1/sessions/${session.id}/fork`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: '{}' });
  const child = (await res.json()) as { id: string; copy: string };
  console.log('fork', child.copy, Math.round(performance.now() - t0));
  await fetch(`${server.url}/v1/sessions/${child.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
}
await server.close();
