// GET /console and /console/assets/<file>: the operator console, a static page whose scripts call the
// public API with the admin key (kept in the browser's sessionStorage). The files hold no secrets, so the
// routes are public; every response carries a strict Content-Security-Policy: nothing inline, nothing
// from another origin. Caching: `no-cache` (revalidate each time; the file names carry no version) with a
// weak ETag, so a repeat visit costs 304s, and the bodies are compressed (br/gzip) — both by the Fastify
// plugins, registered here so they apply to the console's routes only (this plugin is encapsulated).
import fastifyCompress from '@fastify/compress';
import fastifyEtag from '@fastify/etag';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { loadConsoleAssets } from './assets.js';

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders = (reply: FastifyReply) =>
  reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache');

export default async function consoleRoutes(app: FastifyInstance): Promise<void> {
  const assets = loadConsoleAssets();
  const page = assets.get('index.html');
  if (!page) throw new Error('console/index.html is missing');
  const hidden = { hide: true } as const;
  // The ETag before compression (hooks run in registration order): it hashes the file, and is weak
  // because the br, gzip and identity bodies are one resource in different encodings.
  await app.register(fastifyEtag, { weak: true });
  await app.register(fastifyCompress, { encodings: ['br', 'gzip'] });

  app.get('/console', { config: { access: 'public' }, schema: hidden }, async (_request, reply) =>
    securityHeaders(reply).type(page.contentType).send(page.body),
  );
  app.get('/console/', { config: { access: 'public' }, schema: hidden }, async (_request, reply) =>
    reply.redirect('/console', 301),
  );
  app.get<{ Params: { name: string } }>(
    '/console/assets/:name',
    {
      config: { access: 'public' },
      schema: { ...hidden, params: Type.Object({ name: Type.String({ maxLength: 100 }) }) },
    },
    async (request, reply) => {
      const found = request.params.name === 'index.html' ? undefined : assets.get(request.params.name);
      if (!found) {
        throw toolgateError('ROUTE_NOT_FOUND', `No console asset ${request.params.name.slice(0, 100)}`);
      }
      return securityHeaders(reply).type(found.contentType).send(found.body);
    },
  );
}
