// Session rows: policy chosen at creation, token stored only as a SHA-256 hash, expiry.
import { createHash, randomBytes } from 'node:crypto';
import type { Permission, RateLimits } from '../config.js';
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
];

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
  createdAt: number;
  expiresAt: number;
}

export type NewSession = Omit<SessionRecord, 'id' | 'createdAt'>;

interface SessionRow {
  id: string;
  profile: string;
  permissions: string;
  categories: string | null;
  exclude_tools: string;
  rate_limits: string;
  approval: string;
  metadata: string;
  created_at: number;
  expires_at: number;
}

const fromRow = (row: SessionRow): SessionRecord => ({
  id: row.id,
  profile: row.profile,
  permissions: JSON.parse(row.permissions),
  categories: row.categories === null ? null : JSON.parse(row.categories),
  excludeTools: JSON.parse(row.exclude_tools),
  rateLimits: JSON.parse(row.rate_limits),
  approval: JSON.parse(row.approval),
  metadata: JSON.parse(row.metadata),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export class SessionStore {
  private readonly insert;
  private readonly byId;
  private readonly byTokenHash;
  private readonly page;
  private readonly remove;
  private readonly expired;
  private readonly countAll;

  constructor(db: Db) {
    this.insert = db.prepare(
      `INSERT INTO sessions (id, token_hash, profile, permissions, categories, exclude_tools, rate_limits, approval,
         metadata, created_at, expires_at)
       VALUES (@id, @token_hash, @profile, @permissions, @categories, @exclude_tools, @rate_limits, @approval,
         @metadata, @created_at, @expires_at)`,
    );
    this.byId = db.prepare('SELECT * FROM sessions WHERE id = ?');
    this.byTokenHash = db.prepare('SELECT * FROM sessions WHERE token_hash = ?');
    // Newest first; the cursor is the last row's (created_at, id) so pages never skip or repeat.
    this.page = db.prepare(
      `SELECT * FROM sessions WHERE (created_at < @createdAt OR (created_at = @createdAt AND id < @id))
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    );
    this.remove = db.prepare('DELETE FROM sessions WHERE id = ?');
    this.expired = db.prepare('SELECT id FROM sessions WHERE expires_at <= ? LIMIT 500');
    this.countAll = db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE expires_at > ?');
  }

  /** Creates a session and returns it with its token; the token is not stored and cannot be recovered. */
  create(input: NewSession, now = Date.now()): { session: SessionRecord; token: string } {
    const session: SessionRecord = {
      ...input,
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
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    });
    return { session, token };
  }

  /** A live session by id; expired sessions count as gone even before the sweeper removes them. */
  get(id: string, now = Date.now()): SessionRecord | undefined {
    const row = this.byId.get(id) as SessionRow | undefined;
    return row && row.expires_at > now ? fromRow(row) : undefined;
  }

  getByToken(token: string, now = Date.now()): SessionRecord | undefined {
    const row = this.byTokenHash.get(hashToken(token)) as SessionRow | undefined;
    return row && row.expires_at > now ? fromRow(row) : undefined;
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
    return (this.countAll.get(now) as { n: number }).n;
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }

  expiredIds(now = Date.now()): string[] {
    return (this.expired.all(now) as { id: string }[]).map((row) => row.id);
  }
}
