// The console's routes without a browser: the page and its assets are public, come with the strict CSP,
// and only the files of the asset table can be named; uPlot comes from node_modules through the service,
// and only once the Stats page asks for it. Assets revalidate with an ETag (304) and go out compressed.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

describe('console routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const expectStrictCsp = (header: string | undefined) => {
    const directives = new Map(
      (header ?? '').split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
    );
    expect(directives.get('default-src')).toBe("'self'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('style-src')).toBe("'self'");
    expect(directives.get('connect-src')).toBe("'self'");
    expect(directives.get('object-src')).toBe("'none'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(header).not.toMatch(/unsafe-|https?:|\*/);
  };

  it('serves the page without a token, with a strict CSP and no inline script or style', async () => {
    const res = await t.http.get('/console').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expectStrictCsp(res.headers['content-security-policy']);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toContain('<script type="module" src="/console/assets/main.js"></script>');
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    // Every URL the page names is on the service.
    for (const [, url] of res.text.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^(\/|#)/);
    await t.http.get('/console/').expect(301).expect('location', '/console');
  });

  it('serves the modules, the stylesheet and uPlot from the service, each with the CSP', async () => {
    for (const [name, type] of [
      ['main.js', 'text/javascript; charset=utf-8'],
      ['console.css', 'text/css; charset=utf-8'],
      ['uPlot.esm.js', 'text/javascript; charset=utf-8'],
      ['uPlot.min.css', 'text/css; charset=utf-8'],
    ]) {
      const res = await t.http.get(`/console/assets/${name}`).expect(200);
      expect(res.headers['content-type'], name).toBe(type);
      expectStrictCsp(res.headers['content-security-policy']);
    }
    const uplot = await t.http.get('/console/assets/uPlot.esm.js').buffer(true);
    expect(String(uplot.text ?? uplot.body)).toContain('export { uPlot as default }');
  });

  it('the page scripts import nothing from another origin', async () => {
    for (const name of [
      'main.js',
      'api.js',
      'sessions.js',
      'activity.js',
      'interactive.js',
      'approvals.js',
      'audit.js',
      'stats.js',
    ]) {
      const res = await t.http.get(`/console/assets/${name}`).buffer(true).expect(200);
      const imports = [...String(res.text).matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
      for (const target of imports) expect(target, name).toMatch(/^\.\/[\w.-]+\.js$/);
    }
  });

  it('revalidates the page and every asset with a weak ETag: a repeat visit costs 304s', async () => {
    for (const url of ['/console', '/console/assets/main.js', '/console/assets/uPlot.esm.js']) {
      const first = await t.app.inject({ url });
      expect(first.statusCode, url).toBe(200);
      expect(first.headers['cache-control'], url).toBe('no-cache');
      const etag = String(first.headers.etag);
      expect(etag, url).toMatch(/^W\/"[^"]+"$/);
      const again = await t.app.inject({ url, headers: { 'if-none-match': etag } });
      expect(again.statusCode, url).toBe(304);
      expect(again.rawPayload.length, url).toBe(0);
      expectStrictCsp(String(again.headers['content-security-policy']));
      // The tag names the content: another file's tag does not match.
      const stale = await t.app.inject({ url, headers: { 'if-none-match': 'W/"not-this-one"' } });
      expect(stale.statusCode, url).toBe(200);
    }
  });

  it('compresses the assets (br, gzip) for a browser that accepts it; the same bytes come back', async () => {
    const url = '/console/assets/uPlot.esm.js';
    const plain = await t.app.inject({ url });
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const [encoding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const res = await t.app.inject({ url, headers: { 'accept-encoding': encoding } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      // Less than a third on the wire.
      expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
      expect(decode(res.rawPayload).equals(plain.rawPayload)).toBe(true);
      // One resource in two encodings: the same weak tag revalidates either.
      expect(res.headers.etag).toBe(plain.headers.etag);
    }
  });

  it('loads the chart library only for the Stats page: the sign-in page never fetches uPlot', async () => {
    // What a browser loads with the page: its script and stylesheet links, then every module's static
    // imports, transitively (a dynamic import() waits until its code runs).
    const page = (await t.app.inject({ url: '/console' })).body;
    const loaded = new Set<string>();
    const queue = [...page.matchAll(/<(?:script|link)[^>]*(?:src|href)="\/console\/assets\/([^"]+)"/g)].map(
      (m) => m[1],
    );
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (loaded.has(name)) continue;
      loaded.add(name);
      if (!name.endsWith('.js')) continue;
      const source = (await t.app.inject({ url: `/console/assets/${name}` })).body;
      for (const m of source.matchAll(/^import\s(?:[^'"]*\sfrom\s)?'\.\/([^']+)';$/gm)) queue.push(m[1]);
    }
    expect(loaded).toContain('main.js');
    expect(loaded).toContain('stats.js');
    expect([...loaded].filter((name) => /uplot/i.test(name))).toEqual([]);
    // The Stats page still reaches it, on demand.
    const stats = (await t.app.inject({ url: '/console/assets/stats.js' })).body;
    expect(stats).toContain("import('./uPlot.esm.js')");
    expect(stats).toContain('/console/assets/uPlot.min.css');
  });

  it('answers 404 in the error envelope for anything outside the asset table', async () => {
    for (const name of [
      'nope.js',
      '..%2Fpackage.json',
      '..%2F..%2Fsrc%2Fapp.ts',
      'index.html',
      '%2Fetc%2Fpasswd',
    ]) {
      const res = await t.http.get(`/console/assets/${name}`).expect(404);
      expect(res.body.error.code, name).toBe('ROUTE_NOT_FOUND');
    }
    await t.http.get('/console/assets/../../package.json').expect(404);
  });

  it('does not appear in the OpenAPI document', async () => {
    const res = await t.http.get('/openapi.json').expect(200);
    expect(Object.keys(res.body.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });
});
