// The host-name form of previews (TOOLGATE_PREVIEW_DOMAIN): the app at the root of P-<key>.<domain>,
// so root-absolute paths (even toolgate's own, /v1/…) reach the app; a link signs a browser in with a
// cookie of that host only, which the app never sees; a cookie or token for another port or session is
// refused; WebSocket works the same way; and un-exposing a port shuts every form of it. Chromium opens
// a page whose script is at a root-absolute path (*.localhost resolves to loopback in Chromium itself).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';
import { linkKey, signLink } from '../../src/preview/links.js';
import { hostKeyOf } from '../../src/preview/host-form.js';
import { launchChromium } from '../console/browser.js';
import { startAppWithConfig } from '../ops/with-config.js';
import {
  PREVIEW_APP,
  startPreviewApp,
  requestWithHost as request,
  webSocketRoundTrips,
  type Answer,
} from './preview-app.js';

const DOMAIN = 'preview.localhost';

const codeOf = (answer: Answer) => (JSON.parse(answer.body) as { error: { code: string } }).error.code;

describe.skipIf(needs('bwrap', 'the preview host-name form tests'))('previews: the host-name form', () => {
  let t: TestApp;
  let port: number;
  let s: { id: string; token: string };
  let other: { id: string; token: string };
  let host: string;
  let cookie: string;

  beforeAll(async () => {
    t = await startApp({ TOOLGATE_SANDBOX: 'bwrap', TOOLGATE_PREVIEW_DOMAIN: DOMAIN });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
    s = await t.createSession({ profile: 'execute', files: { 'server.py': PREVIEW_APP } });
    other = await t.createSession({ profile: 'execute' });
    host = `8000-${hostKeyOf(s.id)}.${DOMAIN}:${port}`;
    await startPreviewApp(t, s);
    expect((await t.call(s, 'expose_port', { port: 8000 })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it('a link answers the host-name URL; opening it sets a cookie of that host and drops the token', async () => {
    const made = await fetch(`http://127.0.0.1:${port}/v1/sessions/${s.id}/ports/8000/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: '{"minutes":5}',
    });
    const link = (await made.json()) as { token: string; hostUrl: string };
    expect(link.hostUrl).toBe(`http://${host}/?toolgate_link=${link.token}`);
    const opened = await request(port, host, `/deep/page?toolgate_link=${link.token}&keep=1`);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/deep/page?keep=1');
    const setCookie = opened.headers['set-cookie']![0];
    expect(setCookie).toMatch(/^toolgate_preview=p1\.[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(setCookie).not.toMatch(/Domain=/i);
    cookie = setCookie.split(';')[0];
  });

  it('serves the app at its root: every path is the app’s, toolgate’s cookie and header never reach it', async () => {
    const page = await request(port, host, '/v1/health?x=1', { cookie: `${cookie}; app=1` });
    expect(page.status).toBe(200);
    expect(JSON.parse(page.body)).toEqual({
      path: '/v1/health?x=1',
      authorization: null,
      host: 'localhost:8000',
      cookie: 'app=1',
    });
    // The app's cookie stays on this host, at the path it asked for.
    expect(page.headers['set-cookie']).toEqual(['app=1; Path=/']);
    const byToken = await request(port, host, '/mcp', { authorization: `Bearer ${s.token}` });
    expect(JSON.parse(byToken.body)).toMatchObject({ path: '/mcp', authorization: null });
    const root = await request(port, host, '/abs', { cookie });
    expect(root.body).toContain('<script src="/assets/app.js">');
    const script = await request(port, host, '/assets/app.js', { cookie });
    expect(script.body).toContain('loaded from the root');
  });

  it('refuses no credentials, another session, and links for another port, session or time', async () => {
    const none = await request(port, host, '/');
    expect(none.status).toBe(401);
    expect(codeOf(none)).toBe('UNAUTHORIZED');
    const theirs = await request(port, host, '/', { authorization: `Bearer ${other.token}` });
    expect(theirs.status).toBe(404);
    const key = linkKey(ADMIN_KEY);
    const soon = Math.floor(Date.now() / 1000) + 60;
    const otherPort = signLink(key, { sessionId: s.id, port: 8001, expiresAt: soon });
    const otherSession = signLink(key, { sessionId: other.id, port: 8000, expiresAt: soon });
    const expired = signLink(key, { sessionId: s.id, port: 8000, expiresAt: soon - 120 });
    for (const [token, code] of [
      [otherPort, 'PREVIEW_LINK_INVALID'],
      [otherSession, 'PREVIEW_LINK_INVALID'],
      [expired, 'PREVIEW_LINK_EXPIRED'],
      ['p1.forged', 'PREVIEW_LINK_INVALID'],
    ]) {
      const byCookie = await request(port, host, '/', { cookie: `toolgate_preview=${token}` });
      expect([byCookie.status, codeOf(byCookie)]).toEqual([401, code]);
      const byQuery = await request(port, host, `/?toolgate_link=${token}`);
      expect([byQuery.status, codeOf(byQuery)]).toEqual([401, code]);
    }
    // The routing prefix is not a way in from the service's own host.
    const direct = await request(port, `127.0.0.1:${port}`, `/v1/preview-hosts/8000-${hostKeyOf(s.id)}/`, {
      cookie,
    });
    expect(direct.status).toBe(404);
  });

  it('carries a WebSocket on the host-name form with the link cookie', async () => {
    const echoes = await webSocketRoundTrips(`ws://127.0.0.1:${port}/ws`, ['one', 'two'], {
      host,
      cookie,
    });
    expect(echoes).toEqual(['echo:one', 'echo:two']);
  });

  it.skipIf(needs('chromium', 'the host-name form in Chromium'))(
    'Chromium opens the link and runs a script at a root-absolute path',
    async () => {
      const made = await fetch(`http://127.0.0.1:${port}/v1/sessions/${s.id}/ports/8000/links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const { hostUrl } = (await made.json()) as { hostUrl: string };
      const chromium = await launchChromium();
      try {
        const page = await chromium.browser.newPage();
        await page.goto(hostUrl.replace('/?', '/abs?'));
        expect(new URL(page.url()).search).toBe('');
        await page.waitForFunction(
          () => document.getElementById('out')?.textContent === 'loaded from the root',
        );
        // The sign-in cookie is HttpOnly: the app's scripts cannot read it.
        expect(await page.evaluate(() => document.cookie)).not.toContain('toolgate_preview');
      } finally {
        await chromium.close();
      }
    },
    60_000,
  );

  it('un-exposing a port shuts every form of it; a profile’s port and a port never exposed are refused', async () => {
    const gone = await t.admin(t.http.delete(`/v1/sessions/${s.id}/exposed-ports/8000`));
    expect(gone.status).toBe(200);
    expect(gone.body.exposed).toEqual([]);
    const byHost = await request(port, host, '/', { cookie });
    expect([byHost.status, codeOf(byHost)]).toEqual([403, 'PORT_NOT_EXPOSED']);
    const byToken = await fetch(`http://127.0.0.1:${port}/v1/sessions/${s.id}/ports/8000/`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(byToken.status).toBe(403);
    const again = await t.http
      .delete(`/v1/sessions/${s.id}/exposed-ports/8000`)
      .set('authorization', `Bearer ${s.token}`);
    expect([again.status, again.body.error.code]).toEqual([403, 'PORT_NOT_EXPOSED']);
    const bad = await t.http
      .delete(`/v1/sessions/${s.id}/exposed-ports/99999`)
      .set('authorization', `Bearer ${s.token}`);
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    // Exposed again, it serves again.
    expect((await t.call(s, 'expose_port', { port: 8000 })).status).toBe(200);
    expect((await request(port, host, '/again', { cookie })).status).toBe(200);
  });
});

describe.skipIf(needs('bwrap', 'the preview policy-port test'))(
  'previews: a port the profile exposes',
  () => {
    let t: TestApp;
    afterAll(async () => t?.close());

    it('cannot be un-exposed by a call (409)', async () => {
      t = await startAppWithConfig(
        {
          profiles: {
            web: { permissions: ['read', 'write', 'execute'], preview: { expose: true, ports: [3000] } },
          },
        },
        { TOOLGATE_SANDBOX: 'bwrap' },
      );
      const s = await t.createSession({ profile: 'web' });
      const refused = await t.http
        .delete(`/v1/sessions/${s.id}/exposed-ports/3000`)
        .set('authorization', `Bearer ${s.token}`);
      expect([refused.status, refused.body.error.code]).toEqual([409, 'PORT_EXPOSED_BY_POLICY']);
    });
  },
);
