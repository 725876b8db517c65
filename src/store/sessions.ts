// Session rows: policy chosen at creation, token stored only as a SHA-256 hash, expiry.
import { createHash, randomBytes } from 'node:crypto';
import type { NetworkPolicy, Permission, RateLimits } from '../config.js';
import type { Db, Migration } from './db.js';

export const sessionMigrations: Migration[] = [
  {
    name: 'sessions_0001_create',
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        profile TEXT NOT NULL,
        permissions TEXT NOT NULL,
        categories TEXT,
        exclude_tools TEXT NOT NULL,
        rate_limits TEXT NOT NULL,
        approval TEXT NOT NULL,
        metadata TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_expires_at ON sessions (expires_at);
    `,
  },
  {
    // Idle expiry: NULL means "not used since creation" (created_at counts), so inserts need not change.
    name: 'sessions_0002_last_used',
    sql: `
      ALTER TABLE sessions ADD COLUMN last_used_at INTEGER;
      CREATE INDEX sessions_last_used ON sessions (COALESCE(last_used_at, created_at));
    `,
  },
  {
    // The egress policy (JSON); NULL in rows made before it existed: see networkOf.
    name: 'sessions_0003_network',
    sql: 'ALTER TABLE sessions ADD COLUMN network TEXT;',
  },
  {
    // The image key a session's runtime container or pod is made from; NULL: the backend's default.
    name: 'sessions_0004_image',
    sql: `ALTER TABLE sessions ADD COLUMN image TEXT;`,
  },
];

/** A session without a stored policy: open when it has the network permission (what it meant then). */
const networkOf = (
  stored: NetworkPolicy | null | undefined,
  permissions: readonly Permission[],
): NetworkPolicy => stored ?? (permissions.includes('network') ? { mode: 'open' } : { mode: 'off' });

export interface SessionRecord {
  id: string;
  profile: string;
  permissions: Permission[];
  /** Categories the admin narrowed the session to; null = every category its permissions allow. */
  categories: string[] | null;
  excludeTools: string[];
  rateLimits: RateLimits;
  /** Tool or category names whose calls wait for an admin's approval. */
  approval: string[];
  metadata: Record<string, unknown>;
  /** Where its network may go (network/policy.ts); `off` without the network permission. */
  network: NetworkPolicy;
  /** Image key of its runtime (docker, kubernetes backends); null or absent: the backend's default. */
  image?: string | null;
  createdAt: number;
  expiresAt: number;
}

/** `network` left out: derived from the permissions. */
export type NewSession = Omit<SessionRecord, 'id' | 'createdAt' | 'network'> & { network?: NetworkPolicy };

interface SessionRow {
  id: string;
  profile: string;
  permissions: string;
  categories: string | null;
  exclude_tools: string;
  rate_limits: string;
  approval: string;
  metadata: string;
  network: string | null;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  image: string | null;
}

export interface SessionStoreOptions {
  /** A session with no recorded use for this long counts as expired; 0 = never idles out. */
  idleTtlMs?: number;
}

// A live row: not past its lifetime and, with idle expiry on, used recently enough.
const LIVE = `expires_at > @now AND (@idleMs = 0 OR COALESCE(last_used_at, created_at) > @now - @idleMs)`;

const fromRow = (row: SessionRow): SessionRecord => ({
  id: row.id,
  profile: row.profile,
  permissions: JSON.parse(row.permissions),
  categories: row.categories === null ? null : JSON.parse(row.categories),
  excludeTools: JSON.parse(row.exclude_tools),
  rateLimits: JSON.parse(row.rate_limits),
  approval: JSON.parse(row.approval),
  metadata: JSON.parse(row.metadata),
  network: networkOf(
    row.network === null ? null : (JSON.parse(row.network) as NetworkPolicy),
    JSON.parse(row.permissions),
  ),
  image: row.image,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Every authenticated request looks its token up; a session found is reused for this long. Deletion in
 * this process drops it at once; another instance's deletion or idle expiry shows within this window.
 */
const TOKEN_CACHE_MS = 1000;
const TOKEN_CACHE_MAX = 10_000;

export class SessionStore {
  private readonly tokenCache = new Map<string, { session: SessionRecord; until: number }>();
  private readonly insert;
  private readonly byId;
  private readonly byTokenHash;
  private readonly page;
  private readonly remove;
  private readonly expired;
  private readonly countAll;
  private readonly markUsed;
  private readonly idleTtlMs: number;
  /** Last-use times written per session: the row is updated at most once per touch interval. */
  private readonly lastWritten = new Map<string, number>();
  private readonly touchIntervalMs: number;

  constructor(db: Db, options: SessionStoreOptions = {}) {
    this.idleTtlMs = options.idleTtlMs ?? 0;
    // Once a minute, or often enough that a busy session can never look idle with a short TTL.
    this.touchIntervalMs = this.idleTtlMs > 0 ? Math.min(60_000, this.idleTtlMs / 4) : 60_000;
    this.markUsed = db.prepare('UPDATE sessions SET last_used_at = ? WHERE id = ?');
    this.insert = db.prepare(
      `INSERT INTO sessions (id, token_hash, profile, permissions, categories, exclude_tools, rate_limits, approval,
         metadata, network, image, created_at, expires_at)
       VALUES (@id, @token_hash, @profile, @permissions, @categories, @exclude_tools, @rate_limits, @approval,
         @metadata, @network, @image, @created_at, @expires_at)`,
    );
    this.byId = db.prepare(`SELECT * FROM sessions WHERE id = @id AND ${LIVE}`);
    this.byTokenHash = db.prepare(`SELECT * FROM sessions WHERE token_hash = @hash AND ${LIVE}`);
    // Newest first; the cursor is the last row's (created_at, id) so pages never skip or repeat.
    this.page = db.prepare(
      `SELECT * FROM sessions WHERE (created_at < @createdAt OR (created_at = @createdAt AND id < @id))
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    );
    this.remove = db.prepare('DELETE FROM sessions WHERE id = ?');
    this.expired = db.prepare(`SELECT id FROM sessions WHERE NOT (${LIVE}) LIMIT 500`);
    this.countAll = db.prepare(`SELECT COUNT(*) AS n FROM sessions WHERE ${LIVE}`);
  }

  /** Creates a session and returns it with its token; the token is not stored and cannot be recovered. */
  create(input: NewSession, now = Date.now()): { session: SessionRecord; token: string } {
    const session: SessionRecord = {
      ...input,
      network: networkOf(input.network, input.permissions),
      id: `ses_${randomBytes(12).toString('base64url')}`,
      createdAt: now,
    };
    const token = `tgs_${randomBytes(32).toString('base64url')}`;
    this.insert.run({
      id: session.id,
      token_hash: hashToken(token),
      profile: session.profile,
      permissions: JSON.stringify(session.permissions),
      categories: session.categories === null ? null : JSON.stringify(session.categories),
      exclude_tools: JSON.stringify(session.excludeTools),
      rate_limits: JSON.stringify(session.rateLimits),
      approval: JSON.stringify(session.approval),
      metadata: JSON.stringify(session.metadata),
      network: JSON.stringify(session.network),
      image: session.image ?? null,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    });
    return { session, token };
  }

  /** A live session by id; expired sessions count as gone even before the sweeper removes them. */
  get(id: string, now = Date.now()): SessionRecord | undefined {
    const row = this.byId.get({ id, now, idleMs: this.idleTtlMs }) as SessionRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  getByToken(token: string, now = Date.now()): SessionRecord | undefined {
    return this.getByTokenHash(hashToken(token), now);
  }

  /** As getByToken, for a caller that already hashed the token (auth hashes once per request). */
  getByTokenHash(hash: string, now = Date.now()): SessionRecord | undefined {
    const cached = this.tokenCache.get(hash);
    if (cached && cached.until > now && cached.session.expiresAt > now) return cached.session;
    const row = this.byTokenHash.get({ hash, now, idleMs: this.idleTtlMs }) as SessionRow | undefined;
    if (!row) return undefined;
    const session = fromRow(row);
    if (this.tokenCache.size >= TOKEN_CACHE_MAX) this.tokenCache.clear();
    this.tokenCache.set(hash, { session, until: now + TOKEN_CACHE_MS });
    return session;
  }

  /** Records that the session was used; writes the row at most once per touch interval. */
  touch(id: string, now = Date.now()): void {
    const last = this.lastWritten.get(id);
    if (last !== undefined && now - last < this.touchIntervalMs) return;
    this.lastWritten.set(id, now);
    this.markUsed.run(now, id);
  }

  list(limit: number, cursor?: { createdAt: number; id: string }): SessionRecord[] {
    const rows = this.page.all({
      createdAt: cursor?.createdAt ?? Number.MAX_SAFE_INTEGER,
      id: cursor?.id ?? '\uffff',
      limit,
    }) as SessionRow[];
    return rows.map(fromRow);
  }

  countActive(now = Date.now()): number {
    return (this.countAll.get({ now, idleMs: this.idleTtlMs }) as { n: number }).n;
  }

  delete(id: string): boolean {
    this.lastWritten.delete(id);
    for (const [hash, entry] of this.tokenCache) if (entry.session.id === id) this.tokenCache.delete(hash);
    return this.remove.run(id).changes > 0;
  }

  /** Sessions past their lifetime or idle for longer than the idle TTL. */
  expiredIds(now = Date.now()): string[] {
    return (this.expired.all({ now, idleMs: this.idleTtlMs }) as { id: string }[]).map((row) => row.id);
  }
}
