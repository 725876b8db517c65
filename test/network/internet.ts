// A stand-in for the internet that the egress tests talk to: a network namespace of the test's own, a
// veth pair into it (host side 198.18.N.1, namespace side 198.18.N.2: the benchmarking range, blocked by
// default, opened by the test's config for .2 only), and in it an HTTP server on :80 and an HTTPS server
// on :443 with a certificate from a test CA. Names are mapped in a hosts file the proxy is pointed at.
// Also used by bench/egress.bench.ts.
// No traffic ever leaves the host. Needs root and iproute2: `unavailable()` says why not, in one line.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Internet {
  /** The namespace side, where the servers listen. */
  readonly address: string;
  /** The host side of the veth pair: one of the host's own addresses. */
  readonly hostAddress: string;
  readonly dir: string;
  /** PEM of the test CA (commands pass it to curl --cacert). */
  readonly caPem: string;
  /** A hosts file: allowed.test, denied.test, a.wild.test → the namespace; rebind.test → 127.0.0.1. */
  readonly hostsFile: string;
  close(): void;
}

export function unavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: cannot create network namespaces';
  for (const tool of ['/usr/bin/bwrap', '/usr/sbin/ip', '/usr/bin/openssl', '/usr/bin/curl']) {
    if (!existsSync(tool)) return `${tool} is not installed`;
  }
  return undefined;
}

const sh = (file: string, args: string[]) => execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });

/** The servers in the namespace. /big?bytes=N streams N bytes; /redirect?to=URL answers 302. */
const SERVER = `
const http = require('node:http');
const https = require('node:https');
const fs = require('node:fs');
const [dir] = process.argv.slice(2);
const page = '<html><head><title>Test page</title></head><body><article><h1>Egress</h1>' +
  '<p>' + 'All traffic goes through the proxy. '.repeat(20) + '</p></article></body></html>';
const handler = (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/hello') return res.end('hello from ' + req.headers.host + '\\n');
  if (url.pathname === '/redirect') {
    res.writeHead(302, { location: url.searchParams.get('to') });
    return res.end();
  }
  if (url.pathname === '/page.html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end(page);
  }
  if (url.pathname === '/article.html') {
    // An HTML page of about ?bytes= bytes: navigation around an article of many paragraphs.
    const size = Number(url.searchParams.get('bytes'));
    const paragraph = '<p>' + 'Egress goes through the proxy, and every connection is audited. '.repeat(8) + '</p>\\n';
    const parts = ['<html><head><title>Article</title></head><body><nav><a href="/">Home</a></nav><article><h1>Article</h1>'];
    let length = parts[0].length;
    while (length < size) { parts.push(paragraph); length += paragraph.length; }
    parts.push('</article><footer>footer</footer></body></html>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end(parts.join(''));
  }
  if (url.pathname === '/big') {
    const total = Number(url.searchParams.get('bytes'));
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
    const chunk = Buffer.alloc(64 * 1024, 120);
    let sent = 0;
    const more = () => {
      while (sent < total) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += part.length;
        if (!res.write(part)) return res.once('drain', more);
      }
      res.end();
    };
    return more();
  }
  res.writeHead(404);
  res.end('not here\\n');
};
let up = 0;
const ready = () => { if (++up === 2) process.stdout.write('ready\\n'); };
http.createServer(handler).listen(80, '0.0.0.0', ready);
https.createServer({ key: fs.readFileSync(dir + '/server.key'), cert: fs.readFileSync(dir + '/server.pem') }, handler)
  .listen(443, '0.0.0.0', ready);
`;

function makeCertificates(dir: string): void {
  const run = (args: string[]) => sh('/usr/bin/openssl', args);
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=toolgate test CA',
    '-keyout',
    `${dir}/ca.key`,
    '-out',
    `${dir}/ca.pem`,
  ]);
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=allowed.test',
    '-keyout',
    `${dir}/server.key`,
    '-out',
    `${dir}/server.csr`,
  ]);
  writeFileSync(
    `${dir}/ext.cnf`,
    'subjectAltName=DNS:allowed.test,DNS:denied.test,DNS:a.wild.test,DNS:other.test\n',
  );
  run([
    'x509',
    '-req',
    '-in',
    `${dir}/server.csr`,
    '-CA',
    `${dir}/ca.pem`,
    '-CAkey',
    `${dir}/ca.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${dir}/ext.cnf`,
    '-out',
    `${dir}/server.pem`,
  ]);
}

export async function startInternet(): Promise<Internet> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-internet-'));
  const id = randomBytes(3).toString('hex');
  const ns = `tgnet-${id}`;
  const hostIf = `tgh${id}`;
  const nsIf = `tgn${id}`;
  // A subnet per run: two runs at once (another worktree's) must not share a route.
  const subnet = 1 + (parseInt(id, 16) % 250);
  const hostAddress = `198.18.${subnet}.1`;
  const address = `198.18.${subnet}.2`;
  let server: ChildProcess | undefined;
  const close = () => {
    server?.kill('SIGKILL');
    try {
      sh('/usr/sbin/ip', ['netns', 'del', ns]);
    } catch {
      // Not made yet.
    }
    try {
      sh('/usr/sbin/ip', ['link', 'del', hostIf]);
    } catch {
      // Gone with the namespace.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    makeCertificates(dir);
    writeFileSync(path.join(dir, 'server.cjs'), SERVER);
    writeFileSync(
      path.join(dir, 'hosts'),
      `${address} allowed.test denied.test a.wild.test other.test\n127.0.0.1 rebind.test\n10.1.2.3 private.test\n`,
    );
    const ip = (...args: string[]) => sh('/usr/sbin/ip', args);
    ip('netns', 'add', ns);
    ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
    ip('link', 'set', nsIf, 'netns', ns);
    ip('addr', 'add', `${hostAddress}/24`, 'dev', hostIf);
    ip('link', 'set', hostIf, 'up');
    ip('-n', ns, 'addr', 'add', `${address}/24`, 'dev', nsIf);
    ip('-n', ns, 'link', 'set', nsIf, 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    server = spawn(
      '/usr/sbin/ip',
      ['netns', 'exec', ns, process.execPath, path.join(dir, 'server.cjs'), dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      server!.stdout!.once('data', () => resolve());
      server!.once('exit', (code) => reject(new Error(`the test internet's server exited (${code})`)));
    });
  } catch (err) {
    close();
    throw err;
  }
  return {
    address,
    hostAddress,
    dir,
    caPem: path.join(dir, 'ca.pem'),
    hostsFile: path.join(dir, 'hosts'),
    close,
  };
}
