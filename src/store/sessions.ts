// Session rows: policy chosen at creation, token stored only as a SHA-256 hash, expiry.
import { createHash, randomBytes } from 'node:crypto';
import type { NetworkPolicy, Permission, RateLimits } from '../config.js';
import type { Migration, SqlDatabase } from './sql.js';

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
  {
    // The named API key that created the session (config apiKeys), for its quota; NULL: the admin key.
    name: 'sessions_0005_api_key',
    sql: `
      ALTER TABLE sessions ADD COLUMN api_key TEXT;
      CREATE INDEX sessions_api_key ON sessions (api_key);
    `,
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
  /** The named API key that created it (config apiKeys; its forks inherit it); null or absent: the admin key. */
  apiKey?: string | null;
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
  api_key: string | null;
}

export interface SessionStoreOptions {
  /** A session with no recorded use for this long counts as expired; 0 = never idles out. */
  idleTtlMs?: number;
}

/**
 * A live row: not past its lifetime and, with idle expiry on, used recently enough. The idle bound is
 * one bound value (`@usedSince`), not arithmetic on two parameters: PostgreSQL cannot type `$1 - $2`.
 */
const liveWhere = (idle: boolean): string =>
  `expires_at > @now${idle ? ' AND COALESCE(last_used_at, created_at) > @usedSince' : ''}`;

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
  apiKey: row.api_key,
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
  private readonly idleTtlMs: number;
  /** Last-use times written per session: the row is updated at most once per touch interval. */
  private readonly lastWritten = new Map<string, number>();
  private readonly touchIntervalMs: number;
  private readonly live: string;

  constructor(
    private readonly db: SqlDatabase,
    options: SessionStoreOptions = {},
  ) {
    this.idleTtlMs = options.idleTtlMs ?? 0;
    // Once a minute, or often enough that a busy session can never look idle with a short TTL.
    this.touchIntervalMs = this.idleTtlMs > 0 ? Math.min(60_000, this.idleTtlMs / 4) : 60_000;
    this.live = liveWhere(this.idleTtlMs > 0);
  }

  /** The parameters of the live clause at `now`. */
  private liveParams(now: number): { now: number; usedSince?: number } {
    return this.idleTtlMs > 0 ? { now, usedSince: now - this.idleTtlMs } : { now };
  }

  /** Creates a session and returns it with its token; the token is not stored and cannot be recovered. */
  async create(input: NewSession, now = Date.now()): Promise<{ session: SessionRecord; token: string }> {
    const session: SessionRecord = {
      ...input,
      network: networkOf(input.network, input.permissions),
      id: `ses_${randomBytes(12).toString('base64url')}`,
      createdAt: now,
    };
    const token = `tgs_${randomBytes(32).toString('base64url')}`;
    await this.db.run(
      `INSERT INTO sessions (id, token_hash, profile, permissions, categories, exclude_tools, rate_limits, approval,
         metadata, network, image, api_key, created_at, expires_at)
       VALUES (@id, @token_hash, @profile, @permissions, @categories, @exclude_tools, @rate_limits, @approval,
         @metadata, @network, @image, @api_key, @created_at, @expires_at)`,
      {
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
        api_key: session.apiKey ?? null,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      },
    );
    return { session, token };
  }

  /** A live session by id; expired sessions count as gone even before the sweeper removes them. */
  async get(id: string, now = Date.now()): Promise<SessionRecord | undefined> {
    const row = await this.db.get<SessionRow>(`SELECT * FROM sessions WHERE id = @id AND ${this.live}`, {
      id,
      ...this.liveParams(now),
    });
    return row ? fromRow(row) : undefined;
  }

  getByToken(token: string, now = Date.now()): Promise<SessionRecord | undefined> {
    return this.getByTokenHash(hashToken(token), now);
  }

  /** The session of a token hash this store looked up a moment ago, without asking the database. */
  cachedByTokenHash(hash: string, now = Date.now()): SessionRecord | undefined {
    const cached = this.tokenCache.get(hash);
    return cached && cached.until > now && cached.session.expiresAt > now ? cached.session : undefined;
  }

  /** As getByToken, for a caller that already hashed the token (auth hashes once per request). */
  async getByTokenHash(hash: string, now = Date.now()): Promise<SessionRecord | undefined> {
    const cached = this.cachedByTokenHash(hash, now);
    if (cached) return cached;
    const row = await this.db.get<SessionRow>(
      `SELECT * FROM sessions WHERE token_hash = @hash AND ${this.live}`,
      { hash, ...this.liveParams(now) },
    );
    if (!row) return undefined;
    const session = fromRow(row);
    if (this.tokenCache.size >= TOKEN_CACHE_MAX) this.tokenCache.clear();
    this.tokenCache.set(hash, { session, until: now + TOKEN_CACHE_MS });
    return session;
  }

  /** Records that the session was used; writes the row at most once per touch interval. */
  async touch(id: string, now = Date.now()): Promise<void> {
    const last = this.lastWritten.get(id);
    if (last !== undefined && now - last < this.touchIntervalMs) return;
    this.lastWritten.set(id, now);
    await this.db.run('UPDATE sessions SET last_used_at = ? WHERE id = ?', [now, id]);
  }

  async list(limit: number, cursor?: { createdAt: number; id: string }): Promise<SessionRecord[]> {
    // Newest first; the cursor is the last row's (created_at, id) so pages never skip or repeat.
    const rows = await this.db.all<SessionRow>(
      `SELECT * FROM sessions WHERE (created_at < @createdAt OR (created_at = @createdAt AND id < @id))
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
      {
        createdAt: cursor?.createdAt ?? Number.MAX_SAFE_INTEGER,
        id: cursor?.id ?? '\uffff',
        limit,
      },
    );
    return rows.map(fromRow);
  }

  async countActive(now = Date.now()): Promise<number> {
    const row = await this.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM sessions WHERE ${this.live}`,
      this.liveParams(now),
    );
    return Number(row?.n ?? 0);
  }

  /** Live sessions created with the named API key (its quota, config apiKeys). */
  async countActiveOfKey(apiKey: string, now = Date.now()): Promise<number> {
    const row = await this.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM sessions WHERE api_key = @apiKey AND ${this.live}`,
      { apiKey, ...this.liveParams(now) },
    );
    return Number(row?.n ?? 0);
  }

  async delete(id: string): Promise<boolean> {
    this.lastWritten.delete(id);
    for (const [hash, entry] of this.tokenCache) if (entry.session.id === id) this.tokenCache.delete(hash);
    return (await this.db.run('DELETE FROM sessions WHERE id = ?', [id])).changes > 0;
  }

  /** Sessions past their lifetime or idle for longer than the idle TTL. */
  async expiredIds(now = Date.now()): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(
      `SELECT id FROM sessions WHERE NOT (${this.live}) LIMIT 500`,
      this.liveParams(now),
    );
    return rows.map((row) => row.id);
  }
}
