import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
const app = await buildApp(loadConfig({ TOOLGATE_DATA_DIR: mkdtempSync('/tmp/tgm-'), TOOLGATE_API_KEY: 'k', LOG_LEVEL: 'silent' }), { logger: false });
const { session } = app.services.sessions.create({ profile: 'read-only', permissions: ['read'], categories: null, excludeTools: [], rateLimits: {}, approval: [], metadata: {}, expiresAt: Date.now() + 1e9 });
const ws = await app.services.workspaces.create(session.id);
writeFileSync(ws.root + '/small.ts', 'x = 1\n'.repeat(40));
for (let round = 0; round < 4; round++) {
  const n = 20000; const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) { const o = await app.services.pipeline.execute({ toolName: 'read_file', input: { path: 'small.ts' }, session, caller: 'session', entryPoint: 'rest', bytesIn: 10 }); if (!o.ok) throw o.error; }
  const c = process.cpuUsage(c0);
  if (round) console.log('read_file cpu µs/call', ((c.user + c.system) / n).toFixed(1));
}
await app.close();
