// Previews through the runtime, on bwrap (and in the docker project on docker, with a service restart the
// container outlives): HTTP (GET, POST with a body, SSE) and WebSocket reach a server in the session only
// once it is exposed, with the session token or a signed link; the app never sees toolgate's
// Authorization header; expired, forged and tampered links and unexposed ports are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';
import { linkKey, signLink } from '../../src/preview/links.js';
import { bigPattern, PREVIEW_APP, startPreviewApp, webSocketRoundTrips } from './preview-app.js';
import { probeSplice } from '../../src/network/splice-forwarder.js';
import { SPLICE_BODY_BYTES } from '../../src/preview/body-splice.js';

// The docker project (vitest.config.ts) runs this file again with the runtime in a container of the python
// image; every other pass runs it on bwrap.
const onDocker = process.env.TOOLGATE_TEST_SANDBOX === 'docker';
const sandbox = onDocker ? 'docker' : 'bwrap';

describe.skipIf(!onDocker && needs('bwrap', 'the preview tests on bwrap'))(`previews on ${sandbox}`, () => {
  let t: TestApp;
  let base: string;
  let s: { id: string; token: string };
  let other: { id: string; token: string };
  const auth = () => ({ authorization: `Bearer ${s.token}` });

  beforeAll(async () => {
    t = await startApp({ TOOLGATE_SANDBOX: sandbox });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    s = await t.createSession({ profile: 'execute', files: { 'server.py': PREVIEW_APP } });
    other = await t.createSession({ profile: 'execute' });
    await startPreviewApp(t, s);
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it('refuses a port before it is exposed, then lists and serves it', async () => {
    const before = await fetch(`${base}/v1/sessions/${s.id}/ports/8000/x`, { headers: auth() });
    expect(before.status).toBe(403);
    expect((await before.json()).error.code).toBe('PORT_NOT_EXPOSED');
    const ports = await t.call(s, 'list_ports', {});
    expect(ports.body.data.listening).toContainEqual(
      expect.objectContaining({ port: 8000, address: '127.0.0.1' }),
    );
    expect(
      ports.body.data.listening.find((p: { port: number }) => p.port === 8000).processes[0].command,
    ).toContain('server.py');
    const exposed = await t.call(s, 'expose_port', { port: 8000 });
    expect(exposed.status).toBe(200);
    expect(exposed.body.data).toMatchObject({ port: 8000, listening: true });
  });

  it('GET and POST with a body through the token form; the app never sees the Authorization header', async () => {
    const got = await fetch(`${base}/v1/sessions/${s.id}/ports/8000/hello?x=1`, { headers: auth() });
    expect(got.status).toBe(200);
    const seen = await got.json();
    expect(seen).toEqual({ path: '/hello?x=1', authorization: null, host: 'localhost:8000', cookie: null });
    // The app's cookie is scoped to the preview's path, without its Domain.
    expect(got.headers.get('set-cookie')).toBe(`app=1; Path=/v1/sessions/${s.id}/ports/8000/`);
    const body = Buffer.alloc(300_000, 7);
    const posted = await fetch(`${base}/v1/sessions/${s.id}/ports/8000/echo`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/x-thing' },
      body,
    });
    expect(posted.status).toBe(200);
    expect(Buffer.from(await posted.arrayBuffer()).equals(body)).toBe(true);
  });

  // Past SPLICE_BODY_BYTES the body is carried by the kernel (src/preview/body-splice.ts), the connection
  // closed after it: every byte must still arrive in order, the audit row count them, and the next
  // request find a new connection into the session.
  it("holds the app's own socket: the runtime hands each connection over and relays nothing", async () => {
    const got = await fetch(`${base}/v1/sessions/${s.id}/ports/8000/held`, { headers: auth() });
    expect((await got.json()).path).toBe('/held');
    const record = (await t.app.services.sessions.get(s.id))!;
    const kept = Object.values(t.app.services.preview.agent(record, 8000).freeSockets).flat();
    expect(kept.length).toBeGreaterThan(0);
    // A relayed connection is a Unix socket to the runtime (no remote port); a handed-over one is the
    // TCP socket the runtime connected to the app inside its namespace.
    for (const socket of kept)
      expect({ address: socket!.remoteAddress, port: socket!.remotePort }).toEqual({
        address: '127.0.0.1',
        port: 8000,
      });
  });

  it('a large download arrives whole, spliced where the host can, and is audited with its bytes', async () => {
    const bytes = 6 * SPLICE_BODY_BYTES + 12_345;
    const got = await fetch(`${base}/v1/sessions/${s.id}/ports/8000/big?bytes=${bytes}`, { headers: auth() });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-length')).toBe(String(bytes));
    // Only the spliced answer closes its connection (the head says so).
    expect(got.headers.get('connection')).toBe((await probeSplice()) ? 'close' : 'keep-alive');
    const body = Buffer.from(await got.arrayBuffer());
    expect(body.length).toBe(bytes);
    expect(body.equals(bigPattern(bytes))).toBe(true);
    const small = await fetch(`${base}/v1/sessions/${s.id}/ports/8000/after-big`, { headers: auth() });
    expect((await small.json()).path).toBe('/after-big');
    await new Promise((r) => setTimeout(r, 300));
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&tool=preview&limit=100`));
    const row = (audit.body.entries as { inputSummary: string; bytesOut: number; httpStatus: number }[]).find(
      (entry) => entry.inputSummary.includes('"path":"/big"'),
    );
    expect(row).toMatchObject({ bytesOut: bytes, httpStatus: 200 });
  }, 60_000);

  it('a link opens the preview without a header; SSE streams through', async () => {
    const made = await fetch(`${base}/v1/sessions/${s.id}/ports/8000/links`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"minutes":5}',
    });
    expect(made.status).toBe(201);
    const link = await made.json();
    expect(link.path).toMatch(/^\/v1\/previews\/[^/]+\/$/);
    const page = await fetch(`${base}${link.path}page`);
    expect(page.status).toBe(200);
    expect((await page.json()).path).toBe('/page');
    const events = await fetch(`${base}${link.path}events`);
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    expect(await events.text()).toBe('data: tick 0\n\ndata: tick 1\n\ndata: tick 2\n\n');
  });

  it('refuses expired, forged and tampered links, and another session', async () => {
    const key = linkKey(ADMIN_KEY);
    const expired = signLink(key, {
      sessionId: s.id,
      port: 8000,
      expiresAt: Math.floor(Date.now() / 1000) - 5,
    });
    const r1 = await fetch(`${base}/v1/previews/${expired}/`);
    expect(r1.status).toBe(401);
    expect((await r1.json()).error.code).toBe('PREVIEW_LINK_EXPIRED');
    const forged = signLink(Buffer.from('not the key'), {
      sessionId: s.id,
      port: 8000,
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    });
    const r2 = await fetch(`${base}/v1/previews/${forged}/`);
    expect((await r2.json()).error.code).toBe('PREVIEW_LINK_INVALID');
    const good = signLink(key, {
      sessionId: s.id,
      port: 8000,
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    });
    const otherPort = good.replace('.8000.', '.8001.');
    expect((await (await fetch(`${base}/v1/previews/${otherPort}/`)).json()).error.code).toBe(
      'PREVIEW_LINK_INVALID',
    );
    const otherSession = good.replace(`.${s.id}.`, `.${other.id}.`);
    expect((await (await fetch(`${base}/v1/previews/${otherSession}/`)).json()).error.code).toBe(
      'PREVIEW_LINK_INVALID',
    );
    // A link for the other session's port, validly signed: that port is not exposed there.
    const theirs = signLink(key, {
      sessionId: other.id,
      port: 8000,
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    });
    expect((await (await fetch(`${base}/v1/previews/${theirs}/`)).json()).error.code).toBe(
      'PORT_NOT_EXPOSED',
    );
    // Another session's token does not reach this session's preview.
    const cross = await fetch(`${base}/v1/sessions/${s.id}/ports/8000/`, {
      headers: { authorization: `Bearer ${other.token}` },
    });
    expect(cross.status).toBe(404);
  });

  it('a WebSocket echo server in the session round-trips messages, and each connection is audited', async () => {
    const made = await t.call(s, 'expose_port', { port: 8000 });
    const wsBase = base.replace('http', 'ws');
    expect(await webSocketRoundTrips(`${wsBase}${made.body.data.path}ws`, ['one', 'two'])).toEqual([
      'echo:one',
      'echo:two',
    ]);
    expect(
      await webSocketRoundTrips(`${wsBase}/v1/sessions/${s.id}/ports/8000/ws`, ['three'], auth()),
    ).toEqual(['echo:three']);
    await new Promise((r) => setTimeout(r, 500));
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&tool=preview&limit=100`));
    const list = audit.body.entries as {
      inputSummary: string;
      bytesIn: number;
      bytesOut: number;
      status: string;
    }[];
    const sockets = list.filter(
      (row) => row.inputSummary.includes('"websocket":true') && row.status === 'success',
    );
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    expect(sockets[0].bytesIn).toBeGreaterThan(0);
    expect(sockets[0].bytesOut).toBeGreaterThan(0);
  });

  // A runtime container outlives the service by design: after a restart the server in it is still there,
  // and its preview is reached again through the new service's ingress socket (the container's bind of
  // the socket's directory sees the socket made anew), with no tool call first.
  it.runIf(onDocker)(
    'a container that outlived a restart of the service serves its preview again',
    async () => {
      const made = await t.call(s, 'expose_port', { port: 8000 });
      const dataDir = t.dataDir;
      await t.close({ keepData: true });
      t = await startApp({ TOOLGATE_SANDBOX: sandbox }, { dataDir });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
      const page = await fetch(`${base}${made.body.data.path}after`);
      expect(page.status).toBe(200);
      expect((await page.json()).path).toBe('/after');
      const session = await t.admin(t.http.get(`/v1/sessions/${s.id}`));
      expect(session.body.runtime.backend).toBe('docker');
    },
    60_000,
  );
});
