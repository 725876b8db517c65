// Raw file transfer: PUT any bytes, GET them back identical, with ETag, If-None-Match, Range, the
// expected_sha256 compare-and-swap, permissions, the quota and an audit row per transfer.
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startApp, tempDir, type TestApp } from '../helpers/app.js';
import { asBytes } from '../helpers/bytes.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const binary = (res: { body: unknown }) => res.body as Buffer;

describe('raw files', () => {
  let t: TestApp;
  let s: { id: string; token: string };
  const put = (session: { id: string; token: string }, path: string, body: Buffer) =>
    t.http
      .put(`/v1/sessions/${session.id}/files/${path}`)
      .set('authorization', `Bearer ${session.token}`)
      .set('content-type', 'text/plain')
      .send(body);
  const get = (session: { id: string; token: string }, path: string) =>
    asBytes(
      t.http.get(`/v1/sessions/${session.id}/files/${path}`).set('authorization', `Bearer ${session.token}`),
    );

  beforeAll(async () => {
    t = await startApp({}, {});
    s = await t.createSession();
  });
  afterAll(() => t.close());

  it('round-trips any bytes byte-identical, whatever the Content-Type says', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0, 0xff, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]),
      randomBytes(3 * 1024 * 1024 + 17),
    ]);
    const up = await put(s, 'assets/deep/image.png', bytes).set('content-type', 'not a valid type');
    expect(up.status).toBe(201);
    expect(up.body).toEqual({
      path: 'assets/deep/image.png',
      size: bytes.length,
      sha256: sha(bytes),
      created: true,
    });
    expect(up.headers.etag).toBe(`"${sha(bytes)}"`);
    const down = await get(s, 'assets/deep/image.png');
    expect(down.status).toBe(200);
    expect(down.headers['content-type']).toBe('image/png');
    expect(down.headers.etag).toBe(`"${sha(bytes)}"`);
    expect(Number(down.headers['content-length'])).toBe(bytes.length);
    expect(binary(down).equals(bytes)).toBe(true);
    const again = await put(s, 'assets/deep/image.png', Buffer.from('small'));
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    expect(binary(await get(s, 'assets/deep/image.png')).toString()).toBe('small');
  });

  it('writes an empty body as an empty file and serves it', async () => {
    const up = await t.http
      .put(`/v1/sessions/${s.id}/files/empty.bin`)
      .set('authorization', `Bearer ${s.token}`);
    expect(up.status).toBe(201);
    expect(up.body.size).toBe(0);
    const down = await get(s, 'empty.bin');
    expect(down.status).toBe(200);
    expect(binary(down).length).toBe(0);
  });

  it('answers If-None-Match with 304 and serves single byte ranges, 416 past the end', async () => {
    const bytes = Buffer.from('0123456789abcdefghij');
    await put(s, 'range.txt', bytes);
    const etag = `"${sha(bytes)}"`;
    const cached = await get(s, 'range.txt').set('if-none-match', etag);
    expect(cached.status).toBe(304);
    expect(cached.headers.etag).toBe(etag);
    const other = await get(s, 'range.txt').set('if-none-match', '"deadbeef"');
    expect(other.status).toBe(200);
    const part = await get(s, 'range.txt').set('range', 'bytes=2-5');
    expect(part.status).toBe(206);
    expect(binary(part).toString()).toBe('2345');
    expect(part.headers['content-range']).toBe('bytes 2-5/20');
    const tail = await get(s, 'range.txt').set('range', 'bytes=-3');
    expect(binary(tail).toString()).toBe('hij');
    const open = await get(s, 'range.txt').set('range', 'bytes=15-');
    expect(binary(open).toString()).toBe('fghij');
    const beyond = await get(s, 'range.txt').set('range', 'bytes=20-30');
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe('bytes */20');
    const head = await t.http
      .head(`/v1/sessions/${s.id}/files/range.txt`)
      .set('authorization', `Bearer ${s.token}`);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('20');
    expect(head.headers.etag).toBe(etag);
    const multi = await get(s, 'range.txt').set('range', 'bytes=0-1,4-5');
    expect(multi.status).toBe(200);
    expect(binary(multi).equals(bytes)).toBe(true);
  });

  it('refuses a mismatching expected_sha256 with 409 and writes nothing', async () => {
    await put(s, 'cas.txt', Buffer.from('v1'));
    const wrong = await put(s, 'cas.txt', Buffer.from('v2')).set('expected-sha256', 'a'.repeat(64));
    expect(wrong.status).toBe(409);
    expect(wrong.body.error.code).toBe('CONFLICT');
    expect(binary(await get(s, 'cas.txt')).toString()).toBe('v1');
    const right = await t.http
      .put(`/v1/sessions/${s.id}/files/cas.txt?expected_sha256=${sha(Buffer.from('v1'))}`)
      .set('authorization', `Bearer ${s.token}`)
      .send(Buffer.from('v2'));
    expect(right.status).toBe(200);
    const mustBeNew = await put(s, 'cas.txt', Buffer.from('v3')).set('expected-sha256', '');
    expect(mustBeNew.status).toBe(409);
    expect(binary(await get(s, 'cas.txt')).toString()).toBe('v2');
  });

  it('refuses paths outside the workspace and missing files', async () => {
    const outside = await put(s, '..%2F..%2Fescape.txt', Buffer.from('x'));
    expect(outside.status).toBe(403);
    expect(outside.body.error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    const missing = await get(s, 'nope.txt');
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toContain('FILE_NOT_FOUND');
  });

  it("lets a read-only session download but not upload (nor the admin: the session's profile rules, as for tools)", async () => {
    const ro = await t.createSession({ profile: 'read-only', files: { 'a.txt': 'hello' } });
    const refused = await put(ro, 'b.txt', Buffer.from('x'));
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PERMISSION_DENIED');
    expect((await get(ro, 'b.txt')).status).toBe(404);
    expect(binary(await get(ro, 'a.txt')).toString()).toBe('hello');
    const byAdmin = await t
      .admin(t.http.put(`/v1/sessions/${ro.id}/files/c.txt`))
      .send(Buffer.from('by admin'));
    expect(byAdmin.status).toBe(403);
    const readByAdmin = await get(ro, 'a.txt').set('authorization', `Bearer ${ADMIN_KEY}`);
    expect(binary(readByAdmin).toString()).toBe('hello');
    const other = await t.createSession();
    const foreign = await put(other, 'x', Buffer.from('x')).set('authorization', `Bearer ${ro.token}`);
    expect(foreign.status).toBe(404);
  });

  it('records an audit row per transfer with its bytes, refused ones included', async () => {
    const a = await t.createSession();
    await put(a, 'audited.bin', Buffer.alloc(1000, 7));
    await get(a, 'audited.bin');
    const rows = await t.admin(t.http.get(`/v1/audit?sessionId=${a.id}`));
    const byTool = Object.fromEntries(rows.body.entries.map((e: { tool: string }) => [e.tool, e]));
    expect(byTool.file_upload).toMatchObject({ category: 'transfer', status: 'success', bytesIn: 1000 });
    expect(byTool.file_download).toMatchObject({ status: 'success', bytesOut: 1000 });
    const ro = await t.createSession({ profile: 'read-only' });
    await put(ro, 'x', Buffer.from('x'));
    const refused = await t.admin(t.http.get(`/v1/audit?sessionId=${ro.id}`));
    expect(refused.body.entries[0]).toMatchObject({
      tool: 'file_upload',
      status: 'refused',
      errorCode: 'PERMISSION_DENIED',
    });
  });
});

describe('raw files under limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    const dir = tempDir('toolgate-config-');
    const configFile = path.join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ limits: { workspaceMaxBytes: 200_000, uploadMaxBytes: 150_000 } }),
    );
    t = await startApp({ TOOLGATE_CONFIG: configFile });
  });
  afterAll(() => t.close());

  it('refuses an upload past the workspace quota or the upload limit, and leaves nothing behind', async () => {
    const s = await t.createSession();
    const up = (name: string, bytes: number) =>
      t.http
        .put(`/v1/sessions/${s.id}/files/${name}`)
        .set('authorization', `Bearer ${s.token}`)
        .send(Buffer.alloc(bytes, 1));
    expect((await up('one.bin', 120_000)).status).toBe(201);
    const overQuota = await up('two.bin', 100_000);
    expect(overQuota.status).toBe(507);
    expect(overQuota.body.error.code).toBe('QUOTA_EXCEEDED');
    const tooBig = await up('three.bin', 160_000);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('BODY_TOO_LARGE');
    // Replacing counts only the growth.
    expect((await up('one.bin', 130_000)).status).toBe(200);
    const listing = await t.call(s, 'list_directory', { path: '.' });
    expect(listing.body.data.entries.map((e: { path: string }) => e.path)).toEqual(['one.bin']);
  });
});

describe('large raw files', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('streams a 100 MB chunked upload through to the workspace and serves its end by range', async () => {
    const s = await t.createSession();
    const block = randomBytes(1024 * 1024);
    const hash = createHash('sha256');
    for (let i = 0; i < 100; i++) hash.update(block);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const body = Readable.toWeb(
      Readable.from(
        (function* () {
          for (let i = 0; i < 100; i++) yield block;
        })(),
      ),
    );
    const res = await fetch(`${address}/v1/sessions/${s.id}/files/big/blob.bin`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${s.token}` },
      body: body as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(201);
    const json = (await res.json()) as { size: number; sha256: string };
    expect(json.size).toBe(100 * 1024 * 1024);
    expect(json.sha256).toBe(hash.digest('hex'));
    const tail = await fetch(`${address}/v1/sessions/${s.id}/files/big/blob.bin`, {
      headers: { authorization: `Bearer ${s.token}`, range: 'bytes=-1000' },
    });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(block.subarray(block.length - 1000))).toBe(true);
  }, 60_000);
});
