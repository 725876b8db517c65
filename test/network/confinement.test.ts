// A session's network is its own: with the `network` permission a command still cannot reach the host's
// loopback, the host's own addresses, private or link-local ranges, or any address directly; it reaches
// out only through toolgate's egress proxy, which lets allow-listed names through, refuses the rest with
// a 403 naming the rule (after resolution: a name resolving to 127.0.0.1 is refused), re-checks every
// redirect hop, cuts a session off past its egress quota, and audits each connection. A session without
// the network has no route at all. Traffic goes only to loopback and a namespace this test creates.
import { createServer, type Server } from 'node:net';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startAppWithConfig, writeConfigFile } from '../ops/with-config.js';
import { startInternet, unavailable, type Internet } from './internet.js';

const skip = unavailable();
if (skip) console.log(`test/network skipped: ${skip}`);

type Session = { id: string; token: string };
const QUOTA = 3 * 1024 * 1024;

describe.skipIf(skip !== undefined)('a networked session is confined to its egress policy', () => {
  let net: Internet;
  let t: TestApp;
  let configFile: string;
  let appPort: number;
  let hostListener: Server;
  let hostPort: number;
  let open: Session;
  let allow: Session;
  let offline: Session;
  const offline_ = () => offline;

  const run = async (session: Session, command: string) => {
    const res = await t.call(session, 'run_command', { command, timeout_ms: 20_000 });
    expect(res.status).toBe(200);
    return res.body.data as { stdout: string; stderr: string; exitCode: number };
  };
  /**
   * curl through the proxy variables, printing the body and the status. NO_PROXY keeps 127.0.0.1 (the
   * sandbox's own loopback) direct; `-u NO_PROXY` sends those through the proxy too, as a hostile
   * command would try.
   */
  const curl = (session: Session, url: string, extra = '') =>
    run(
      session,
      `env -u NO_PROXY -u no_proxy curl -sS ${extra} --cacert /workspace/ca.pem -w '\\n%{http_code}' '${url}' 2>&1`,
    );
  const networkRows = async (session: Session) => {
    const res = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}&limit=100`));
    expect(res.status).toBe(200);
    return (res.body.entries as Array<{ entryPoint: string; status: string; inputSummary: string }>).filter(
      (row) => row.entryPoint === 'network',
    );
  };

  beforeAll(async () => {
    net = await startInternet();
    const config = {
      network: { openRanges: [`${net.address}/32`], hostsFile: net.hostsFile, connectTimeoutMs: 3000 },
      limits: { egressBytes: QUOTA },
      profiles: {
        'net-allow': {
          permissions: ['read', 'write', 'execute', 'network'],
          network: { mode: 'allowlist', allow: ['allowed.test', '*.wild.test'] },
        },
      },
    };
    configFile = writeConfigFile(config);
    t = await startAppWithConfig(config, { TOOLGATE_SANDBOX: 'bwrap' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    appPort = (t.app.server.address() as { port: number }).port;
    // A listener on the host's own (non-loopback) address: the veth end on the host.
    hostListener = createServer((socket) => socket.end('HTTP/1.0 200 OK\r\n\r\nhost secret\n'));
    await new Promise<void>((resolve) => hostListener.listen(0, net.hostAddress, resolve));
    hostPort = (hostListener.address() as { port: number }).port;
    const { readFileSync } = await import('node:fs');
    const files = { 'ca.pem': readFileSync(net.caPem, 'utf8') };
    open = await t.createSession({ profile: 'full', files });
    allow = await t.createSession({ profile: 'net-allow', files });
    offline = await t.createSession({ profile: 'execute' });
  }, 60_000);

  afterAll(async () => {
    hostListener?.close();
    await t?.close();
    net?.close();
    if (configFile) rmSync(path.dirname(configFile), { recursive: true, force: true });
  });

  it("cannot reach the host's loopback: bash, python and curl, with and without the proxy", async () => {
    expect((await fetch(`http://127.0.0.1:${appPort}/healthz`)).status).toBe(200);
    const bash = await run(
      open,
      `(echo > /dev/tcp/127.0.0.1/${appPort}) 2>/dev/null && echo CONNECTED || echo REFUSED`,
    );
    expect(bash.stdout.trim()).toBe('REFUSED');
    const python = await run(
      open,
      `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${appPort}), timeout=2); print('CONNECTED')" 2>&1 | tail -1`,
    );
    expect(python.stdout).not.toContain('CONNECTED');
    const direct = await curl(open, `http://127.0.0.1:${appPort}/healthz`, "--noproxy '*' --max-time 5");
    expect(direct.stdout).not.toMatch(/\n200$/);
    const proxied = await curl(open, `http://127.0.0.1:${appPort}/healthz`);
    expect(proxied.stdout).toMatch(/\n403$/);
    expect(proxied.stdout).toContain('toolgate egress: 127.0.0.1 denied: loopback');
    // Through CONNECT as well (what https and ALL_PROXY users do).
    const tunnel = await curl(open, `http://127.0.0.1:${appPort}/healthz`, '--proxytunnel');
    expect(tunnel.stdout).not.toContain('"ok"');
    expect(tunnel.stdout).toMatch(/403/);
  });

  it("cannot reach the host's own address, private or link-local ranges", async () => {
    const own = await curl(open, `http://${net.hostAddress}:${hostPort}/`);
    expect(own.stdout).toContain(`${net.hostAddress} denied: one of the host's own addresses`);
    expect(own.stdout).not.toContain('host secret');
    for (const [target, rule] of [
      ['10.0.0.1', 'private range 10.0.0.0/8'],
      ['192.168.1.1', 'private range 192.168.0.0/16'],
      ['169.254.169.254', 'link-local range'],
      ['[fd00::1]', 'private (unique local) range'],
    ]) {
      const res = await curl(open, `http://${target}/latest/meta-data/`);
      expect(res.stdout, target).toMatch(/\n403$/);
      expect(res.stdout, target).toContain(rule);
    }
    const direct = await run(
      open,
      `for a in ${net.hostAddress}/${hostPort} 169.254.169.254/80 10.0.0.1/80; do (echo > /dev/tcp/$a) 2>/dev/null && echo CONNECTED $a; done; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '`,
    );
    expect(direct.stdout).not.toContain('CONNECTED');
    expect(direct.stdout.trim()).toBe('lo');
  });

  it('reaches an allow-listed name through the proxy, over http and https', async () => {
    const plain = await curl(allow, 'http://allowed.test/hello');
    expect(plain.stdout).toBe('hello from allowed.test\n\n200');
    const tls = await curl(allow, 'https://allowed.test/hello');
    expect(tls.stdout).toBe('hello from allowed.test\n\n200');
    const wildcard = await curl(allow, 'https://a.wild.test/hello');
    expect(wildcard.stdout).toBe('hello from a.wild.test\n\n200');
    const rows = await networkRows(allow);
    const allowed = rows.filter((row) => row.status === 'success').map((row) => JSON.parse(row.inputSummary));
    expect(allowed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ host: 'allowed.test', port: 80, via: 'http', address: net.address }),
        expect.objectContaining({ host: 'allowed.test', port: 443, via: 'connect' }),
      ]),
    );
  });

  it('refuses a name not on the list with the rule in the message, and audits the refusal', async () => {
    const events: Array<{ type: string; data: Record<string, unknown> }> = [];
    const unsubscribe = t.app.services.events.subscribe(allow.id, (event) => events.push(event));
    const res = await curl(allow, 'https://denied.test/hello');
    expect(res.stdout).toMatch(/403/);
    const plain = await curl(allow, 'http://denied.test/hello');
    expect(plain.stdout).toBe("toolgate egress: denied.test denied: not in the session's allow-list\n\n403");
    const rows = await networkRows(allow);
    const refused = rows.filter((row) => row.status === 'refused').map((row) => JSON.parse(row.inputSummary));
    expect(refused).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ host: 'denied.test', port: 443, decision: 'denied' }),
        expect.objectContaining({ host: 'denied.test', port: 80, reason: "not in the session's allow-list" }),
      ]),
    );
    unsubscribe();
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'network_connection',
        data: expect.objectContaining({ host: 'denied.test', port: 443, decision: 'denied' }),
      }),
    );
    const metrics = await t.admin(t.http.get('/metrics'));
    expect(metrics.text).toMatch(/toolgate_egress_connections_total\{decision="denied",via="http"\} [1-9]/);
    expect(metrics.text).toMatch(/toolgate_egress_bytes_total\{direction="down"\} [1-9]/);
  });

  it('refuses a TLS tunnel whose server name differs from the host it asked for', async () => {
    // CONNECT allowed.test:443, then a ClientHello for denied.test.
    const res = await curl(
      allow,
      'https://denied.test/hello',
      '--connect-to denied.test:443:allowed.test:443',
    );
    expect(res.stdout).not.toContain('hello from');
    const rows = await networkRows(allow);
    expect(rows.map((row) => row.inputSummary).join('\n')).toContain('TLS server name denied.test differs');
  });

  it('answers 502 for an allowed destination that does not answer, and audits it', async () => {
    for (const extra of ['', '--proxytunnel']) {
      const res = await curl(allow, 'http://allowed.test:81/hello', extra);
      expect(res.stdout).toMatch(/toolgate egress: allowed\.test: connect ECONNREFUSED|502/);
    }
    const rows = (await networkRows(allow)).map((row) => JSON.parse(row.inputSummary));
    const unreached = rows.filter((row) => row.port === 81);
    expect(unreached.map((row) => row.via).sort()).toEqual(['connect', 'http']);
    for (const row of unreached) expect(row.reason).toMatch(/^not reached: connect ECONNREFUSED/);
  });

  it('has no route for a direct connection to an allowed address', async () => {
    const res = await run(
      allow,
      `(echo > /dev/tcp/${net.address}/80) 2>&1 && echo CONNECTED; curl -sS --noproxy '*' --max-time 5 http://${net.address}/hello 2>&1; echo " exit=$?"`,
    );
    expect(res.stdout).not.toContain('CONNECTED');
    expect(res.stdout).not.toContain('hello from');
    expect(res.stdout).toMatch(/unreachable/i);
  });

  it('refuses a name that resolves into a blocked range (DNS rebinding)', async () => {
    const res = await curl(open, `http://rebind.test:${appPort}/healthz`);
    expect(res.stdout).toContain(
      'toolgate egress: rebind.test denied: it resolves to a blocked address: loopback',
    );
    const priv = await curl(open, 'http://private.test/');
    expect(priv.stdout).toContain('it resolves to a blocked address: private range 10.0.0.0/8');
    // The rule, never the address the name resolved to.
    expect(priv.stdout).not.toContain('10.1.2.3');
  });

  it('checks every redirect hop: a redirect to a private address is refused', async () => {
    const res = await curl(
      allow,
      `http://allowed.test/redirect?to=${encodeURIComponent(`http://127.0.0.1:${appPort}/healthz`)}`,
      '-L',
    );
    expect(res.stdout).toMatch(/toolgate egress: 127\.0\.0\.1 denied: .*\n\n403$/);
    const toHost = await curl(
      open,
      `https://allowed.test/redirect?to=${encodeURIComponent('http://169.254.169.254/')}`,
      '-L',
    );
    expect(toHost.stdout).toMatch(/169\.254\.169\.254 denied: link-local range.*\n403$/s);
  });

  it('narrows a session at creation, never widens it', async () => {
    const wider = await t
      .admin(t.http.post('/v1/sessions'))
      .send({ profile: 'net-allow', network: { mode: 'open' } });
    expect(wider.status).toBe(400);
    expect(JSON.stringify(wider.body)).toContain('wider');
    const outside = await t
      .admin(t.http.post('/v1/sessions'))
      .send({ profile: 'net-allow', network: { mode: 'allowlist', allow: ['denied.test'] } });
    expect(outside.status).toBe(400);
    const narrower = await t.createSession({
      profile: 'full',
      network: { mode: 'allowlist', allow: ['a.wild.test'] },
      files: { 'ca.pem': '' },
    });
    expect(narrower.network).toEqual({ mode: 'allowlist', allow: ['a.wild.test'] });
    const res = await curl(narrower, 'http://allowed.test/hello');
    expect(res.stdout).toContain("denied: not in the session's allow-list");
    for (const id of [narrower.id]) await t.admin(t.http.delete(`/v1/sessions/${id}`));
  });

  // /run/toolgate/ingress is there for every session: the runtime dials the service's ingress socket to
  // carry a preview's connection in (src/preview/ingress.ts: a one-time ticket per connection, anything
  // else dropped), which is no way out to the network.
  it('a session without the network has no route, no proxy and no egress socket', async () => {
    const res = await run(
      offline,
      `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; env | grep -ci proxy; ls /run/toolgate/egress.sock 2>&1 | head -1; (echo > /dev/tcp/${net.address}/80) 2>/dev/null && echo CONNECTED`,
    );
    const [iface, proxies] = res.stdout.trim().split('\n');
    expect(iface).toBe('lo');
    expect(proxies).toBe('0');
    expect(res.stdout).toContain('No such file');
    expect(res.stdout).not.toContain('CONNECTED');
  });

  it('web_fetch: an allowed page as Markdown, audited as a web_fetch connection', async () => {
    const res = await t.call(allow, 'web_fetch', { url: 'http://allowed.test/page.html' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 200,
      format: 'markdown',
      title: 'Test page',
      truncated: false,
    });
    expect(res.body.data.content).toContain('# Egress');
    expect(res.body.data.content).toContain('All traffic goes through the proxy.');
    expect(res.body.data.content).not.toContain('<p>');
    const text = await t.call(allow, 'web_fetch', { url: 'http://allowed.test/hello' });
    expect(text.body.data).toMatchObject({ format: 'text', content: 'hello from allowed.test\n' });
    const rows = (await networkRows(allow)).map((row) => JSON.parse(row.inputSummary));
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ host: 'allowed.test', via: 'web_fetch', decision: 'allowed' }),
      ]),
    );
  });

  it('web_fetch: refuses a denied name, and a redirect hop to a blocked address', async () => {
    const denied = await t.call(allow, 'web_fetch', { url: 'http://denied.test/hello' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('EGRESS_DENIED');
    expect(denied.body.error.message).toBe(
      "toolgate egress: denied.test denied: not in the session's allow-list",
    );
    const hop = await t.call(open, 'web_fetch', {
      url: `http://allowed.test/redirect?to=${encodeURIComponent(`http://127.0.0.1:${appPort}/healthz`)}`,
    });
    expect(hop.status).toBe(403);
    expect(hop.body.error.message).toBe('toolgate egress: 127.0.0.1 denied: loopback 127.0.0.0/8');
    const followed = await t.call(open, 'web_fetch', {
      url: `http://allowed.test/redirect?to=${encodeURIComponent('http://a.wild.test/hello')}`,
    });
    expect(followed.body.data).toMatchObject({
      url: 'http://a.wild.test/hello',
      content: 'hello from a.wild.test\n',
    });
    expect(followed.body.data.redirects).toHaveLength(1);
  });

  it('web_fetch: binary content only with save_as, which writes it into the workspace', async () => {
    const url = 'http://allowed.test/big?bytes=5000';
    const refused = await t.call(open, 'web_fetch', { url });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('BINARY_FILE');
    const saved = await t.call(open, 'web_fetch', { url, save_as: 'downloads/blob.bin' });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ format: 'saved', savedTo: 'downloads/blob.bin', bytes: 5000 });
    expect((await run(open, 'wc -c < downloads/blob.bin')).stdout.trim()).toBe('5000');
    const offline = await t.call(offline_(), 'web_fetch', { url: 'http://allowed.test/hello' });
    expect(offline.status).toBe(403);
  });

  it("cuts the session's connections past its egress quota, and refuses new ones", async () => {
    const quota = await t.createSession({ profile: 'net-allow', files: { 'ca.pem': '' } });
    const res = await run(
      quota,
      `curl -sS -o /dev/null -w '%{size_download}' 'http://allowed.test/big?bytes=${2 * QUOTA}' 2>/dev/null; echo " exit=$?"`,
    );
    const [downloaded] = res.stdout.split(' ');
    expect(Number(downloaded)).toBeLessThanOrEqual(QUOTA);
    expect(res.stdout).not.toContain('exit=0');
    const after = await curl(quota, 'http://allowed.test/hello');
    expect(after.stdout).toContain('egress quota');
    const rows = (await networkRows(quota)).map((row) => JSON.parse(row.inputSummary));
    expect(rows.some((row) => String(row.reason).includes('egress quota'))).toBe(true);
    await t.admin(t.http.delete(`/v1/sessions/${quota.id}`));
  });
});
