// Signed, expiring preview links: a token that names one session and one port until a time, signed with
// HMAC-SHA-256 under a key only the service knows (derived from the admin key, which every replica
// shares: any replica verifies a link another made; a new admin key voids every link). The token is the
// link's path (/v1/previews/<token>/…), so a browser needs no cookie and no header: every relative URL
// of the page carries it, and it works in a sandboxed iframe (docs/previews.md says why not a cookie).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { toolgateError } from '../lib/errors.js';

export interface PreviewGrant {
  readonly sessionId: string;
  readonly port: number;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
}

const VERSION = 'p1';
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The signing key for links, from the admin key (a fixed label: the key signs nothing else). */
export function linkKey(adminKey: string): Buffer {
  return createHmac('sha256', adminKey).update('toolgate preview links v1').digest();
}

const sign = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url');

export function signLink(key: Buffer, grant: PreviewGrant): string {
  const body = `${VERSION}.${grant.sessionId}.${grant.port}.${grant.expiresAt}`;
  return `${body}.${sign(key, body)}`;
}

/** The session a token names, unverified (to route it to the replica that owns the session). */
export function sessionOfLink(token: string): string | undefined {
  const [version, sessionId] = token.split('.');
  return version === VERSION && SESSION_ID.test(sessionId ?? '') ? sessionId : undefined;
}

const invalid = () =>
  toolgateError('PREVIEW_LINK_INVALID', 'This preview link is not valid', {
    suggestion: 'Ask for a new link: POST /v1/sessions/{id}/ports/{port}/links, or the expose_port tool.',
  });

/** The grant of a token whose signature holds and which has not expired; else a 401. */
export function verifyLink(
  key: Buffer,
  token: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): PreviewGrant {
  const parts = token.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) throw invalid();
  const [, sessionId, portText, expiresText, signature] = parts;
  if (!SESSION_ID.test(sessionId) || !/^\d{1,5}$/.test(portText) || !/^\d{1,12}$/.test(expiresText))
    throw invalid();
  const expected = Buffer.from(sign(key, parts.slice(0, 4).join('.')));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  const grant = { sessionId, port: Number(portText), expiresAt: Number(expiresText) };
  if (grant.expiresAt <= nowSeconds) {
    throw toolgateError('PREVIEW_LINK_EXPIRED', 'This preview link has expired', {
      suggestion: 'Ask for a new link: POST /v1/sessions/{id}/ports/{port}/links, or the expose_port tool.',
      details: { expiredAt: new Date(grant.expiresAt * 1000).toISOString() },
    });
  }
  return grant;
}
