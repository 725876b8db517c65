// Previews across replicas: two replicas on one database, the session's runtime (and the server in it)
// on r1. A preview link, the token form, the host-name form and a WebSocket used at r2 reach the app through r1: r2 has no
// runtime with that server, and a preview never starts one, so anything r2 served itself would be a
// 502 PORT_NOT_LISTENING.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';
import { freePort } from '../ops/child-server.js';
import { hostKeyOf } from '../../src/preview/host-form.js';
import { PREVIEW_APP, startPreviewApp, requestWithHost, webSocketRoundTrips } from './preview-app.js';

describe.skipIf(needs('bwrap', 'the preview tests across replicas'))('previews across replicas', () => {
  let r1: TestApp;
  let r2: TestApp;
  let at2: string;
  let s: { id: string; token: string };

  beforeAll(async () => {
    const dataDir = tempDir();
    const [port1, port2] = [await freePort(), await freePort()];
    const replica = (id: string, port: number) => ({
      TOOLGATE_SANDBOX: 'bwrap',
      TOOLGATE_REPLICA_ID: id,
      TOOLGATE_REPLICA_URL: `http://127.0.0.1:${port}`,
      TOOLGATE_PREVIEW_DOMAIN: 'preview.localhost',
    });
    r1 = await startApp(replica('r1', port1), { dataDir });
    r2 = await startApp(replica('r2', port2), { dataDir });
    await r1.app.listen({ host: '127.0.0.1', port: port1 });
    await r2.app.listen({ host: '127.0.0.1', port: port2 });
    at2 = `http://127.0.0.1:${port2}`;
    s = await r1.createSession({ profile: 'execute', files: { 'app.py': PREVIEW_APP } });
    // r1 serves the session first: it owns its runtime, where the server runs.
    await startPreviewApp(r1, s, 'app.py');
  }, 60_000);
  afterAll(async () => {
    await r2?.close({ keepData: true });
    await r1?.close();
  });

  it('a link and the token form used at a non-owner reach the app through the owner', async () => {
    const exposed = await r1.call(s, 'expose_port', { port: 8000 });
    expect(exposed.status).toBe(200);
    const page = await fetch(`${at2}${exposed.body.data.path}from-r2?q=1`);
    expect(page.status).toBe(200);
    expect(await page.json()).toMatchObject({ path: '/from-r2?q=1', authorization: null });
    const byToken = await fetch(`${at2}/v1/sessions/${s.id}/ports/8000/token`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(byToken.status).toBe(200);
    expect(await byToken.json()).toMatchObject({ path: '/token', authorization: null });
    // The host-name form: r2 passes the path as the client sent it, and the owner routes it by its Host.
    const host = `8000-${hostKeyOf(s.id)}.preview.localhost`;
    const byHost = await requestWithHost(Number(new URL(at2).port), host, '/v1/from-r2', {
      authorization: `Bearer ${s.token}`,
    });
    expect(byHost.status).toBe(200);
    expect(JSON.parse(byHost.body)).toMatchObject({ path: '/v1/from-r2', authorization: null });
    // r2 never started a runtime for the session: the owner served them all.
    expect(r2.app.services.runtimes.get(s.id)?.state ?? 'stopped').not.toBe('running');
  });

  it('a WebSocket opened at a non-owner round-trips through the owner', async () => {
    const link = await fetch(`${at2}/v1/sessions/${s.id}/ports/8000/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(link.status).toBe(201);
    const { path } = await link.json();
    expect(await webSocketRoundTrips(`${at2.replace('http', 'ws')}${path}ws`, ['one', 'two'])).toEqual([
      'echo:one',
      'echo:two',
    ]);
  });
});
