// Every error toolgate reports: a stable SCREAMING_SNAKE code, its type and HTTP status, defined once here.
// Codes never change once published; add new ones, never rename.

export type ErrorType =
  | 'validation_error'
  | 'user_error'
  | 'permission_error'
  | 'security_error'
  | 'rate_limited'
  | 'timeout'
  | 'system_error';

interface CodeSpec {
  readonly status: number;
  readonly type: ErrorType;
}

const spec = (status: number, type: ErrorType): CodeSpec => ({ status, type });

export const ERROR_CODES = {
  // request shape
  VALIDATION_FAILED: spec(400, 'validation_error'),
  INVALID_JSON: spec(400, 'validation_error'),
  INVALID_PATH: spec(400, 'validation_error'),
  INVALID_REGEX: spec(400, 'validation_error'),
  NO_CHANGES: spec(400, 'validation_error'),
  OFFSET_OUT_OF_RANGE: spec(400, 'validation_error'),
  BAD_REQUEST: spec(400, 'validation_error'),
  BODY_TOO_LARGE: spec(413, 'validation_error'),
  UNSUPPORTED_MEDIA_TYPE: spec(415, 'validation_error'),
  // auth and policy
  UNAUTHORIZED: spec(401, 'permission_error'),
  ADMIN_REQUIRED: spec(403, 'permission_error'),
  PERMISSION_DENIED: spec(403, 'permission_error'),
  TOOL_DISABLED: spec(403, 'permission_error'),
  PATH_OUTSIDE_WORKSPACE: spec(403, 'security_error'),
  HOST_NOT_ALLOWED: spec(403, 'security_error'),
  ORIGIN_NOT_ALLOWED: spec(403, 'security_error'),
  RATE_LIMITED: spec(429, 'rate_limited'),
  APPROVAL_PENDING: spec(202, 'permission_error'),
  APPROVAL_DENIED: spec(403, 'permission_error'),
  APPROVAL_EXPIRED: spec(410, 'permission_error'),
  CALL_NOT_FOUND: spec(404, 'user_error'),
  TOO_MANY_JOBS: spec(429, 'rate_limited'),
  KEY_QUOTA_EXCEEDED: spec(429, 'rate_limited'),
  TOO_MANY_SHELLS: spec(429, 'rate_limited'),
  TOO_MANY_TERMINALS: spec(429, 'rate_limited'),
  TOO_MANY_KERNELS: spec(429, 'rate_limited'),
  // things that do not exist
  ROUTE_NOT_FOUND: spec(404, 'user_error'),
  SESSION_NOT_FOUND: spec(404, 'user_error'),
  TOOL_NOT_FOUND: spec(404, 'user_error'),
  FILE_NOT_FOUND: spec(404, 'user_error'),
  NOT_FOUND: spec(404, 'user_error'),
  METHOD_NOT_ALLOWED: spec(405, 'user_error'),
  // conflicts and things a tool could not do
  CONFLICT: spec(409, 'user_error'),
  ALREADY_EXISTS: spec(409, 'user_error'),
  FILE_CHANGED_SINCE_READ: spec(409, 'user_error'),
  FILE_NOT_READ: spec(409, 'user_error'),
  EDIT_AMBIGUOUS: spec(409, 'user_error'),
  DUPLICATE_CALL: spec(409, 'user_error'),
  // persistent shells: one command at a time; a shell that died stays dead until restarted
  SHELL_BUSY: spec(409, 'user_error'),
  SHELL_DEAD: spec(409, 'user_error'),
  IDEMPOTENCY_KEY_REUSED: spec(422, 'user_error'),
  FILE_TOO_LARGE: spec(413, 'user_error'),
  // a call's CPU-heavy job needs more memory than a worker has (src/cpu/)
  INPUT_TOO_LARGE: spec(413, 'user_error'),
  NOT_A_FILE: spec(422, 'user_error'),
  NOT_A_DIRECTORY: spec(422, 'user_error'),
  DIRECTORY_NOT_EMPTY: spec(422, 'user_error'),
  BINARY_FILE: spec(422, 'user_error'),
  UNSUPPORTED_LANGUAGE: spec(422, 'user_error'),
  EDIT_NOT_FOUND: spec(422, 'user_error'),
  PATCH_FAILED: spec(422, 'user_error'),
  TOOL_FAILED: spec(422, 'user_error'),
  KERNEL_BUSY: spec(409, 'user_error'),
  KERNEL_UNAVAILABLE: spec(422, 'user_error'),
  QUOTA_EXCEEDED: spec(507, 'user_error'),
  // workspaces in and out (files, archives, sources)
  RANGE_NOT_SATISFIABLE: spec(416, 'user_error'),
  ARCHIVE_INVALID: spec(400, 'validation_error'),
  ARCHIVE_UNSAFE: spec(422, 'security_error'),
  ARCHIVE_TOO_LARGE: spec(413, 'user_error'),
  SOURCE_NOT_ALLOWED: spec(403, 'security_error'),
  SOURCE_FAILED: spec(422, 'user_error'),
  // the network (web_fetch; commands get the egress proxy's 403 instead)
  EGRESS_DENIED: spec(403, 'security_error'),
  FETCH_FAILED: spec(422, 'user_error'),
  // previews of a session's servers (docs/previews.md)
  PREVIEW_NOT_ALLOWED: spec(403, 'permission_error'),
  PORT_NOT_EXPOSED: spec(403, 'permission_error'),
  PORT_EXPOSED_BY_POLICY: spec(409, 'user_error'),
  PREVIEW_LINK_INVALID: spec(401, 'permission_error'),
  PREVIEW_LINK_EXPIRED: spec(401, 'permission_error'),
  PORT_NOT_LISTENING: spec(502, 'user_error'),
  // the service
  TIMEOUT: spec(504, 'timeout'),
  SANDBOX_UNAVAILABLE: spec(503, 'system_error'),
  RUNTIME_UNAVAILABLE: spec(503, 'system_error'),
  /** The session's runtime image is not on the container engine: the operator must build it first. */
  IMAGE_NOT_FOUND: spec(503, 'system_error'),
  /** The request reached the replica serving the session, which then failed: it may or may not have run. */
  OUTCOME_UNKNOWN: spec(503, 'system_error'),
  INSUFFICIENT_STORAGE: spec(507, 'system_error'),
  STORAGE_UNAVAILABLE: spec(503, 'system_error'),
  SHUTTING_DOWN: spec(503, 'system_error'),
  CAPACITY_EXHAUSTED: spec(503, 'system_error'),
  INTERNAL_ERROR: spec(500, 'system_error'),
  // the load balancer in front of replicas (docker/haproxy/haproxy.cfg answers these itself, in the envelope)
  REPLICA_FAILED: spec(502, 'system_error'),
  NO_REPLICA_AVAILABLE: spec(503, 'system_error'),
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorOptions {
  suggestion?: string;
  details?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After for 429). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ToolgateError extends Error {
  readonly code: ErrorCode;
  readonly type: ErrorType;
  readonly statusCode: number;
  readonly suggestion?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolgateError';
    this.code = code;
    this.type = ERROR_CODES[code].type;
    this.statusCode = ERROR_CODES[code].status;
    this.suggestion = options.suggestion;
    this.details = options.details;
    this.headers = options.headers;
  }

  /** The `error` member of the envelope. */
  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, type: this.type, message: this.message };
    if (this.suggestion !== undefined) body.suggestion = this.suggestion;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export interface ErrorBody {
  code: string;
  type: ErrorType;
  message: string;
  suggestion?: string;
  details?: Record<string, unknown>;
}

export const toolgateError = (code: ErrorCode, message: string, options?: ErrorOptions): ToolgateError =>
  new ToolgateError(code, message, options);

export const isToolgateError = (value: unknown): value is ToolgateError => value instanceof ToolgateError;

/** Node's fs errors carry codes; map the ones a caller can act on. `displayPath` is workspace-relative. */
export function fromFsError(err: unknown, displayPath: string): ToolgateError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return toolgateError('FILE_NOT_FOUND', `No such file or directory: ${displayPath}`, {
        suggestion: 'Check the path with list_directory or glob.',
      });
    case 'EISDIR':
      return toolgateError('NOT_A_FILE', `${displayPath} is a directory`, {
        suggestion: 'Use list_directory to see its contents.',
      });
    case 'ENOTDIR':
      return toolgateError('NOT_A_DIRECTORY', `A parent of ${displayPath} is not a directory`);
    case 'EEXIST':
      return toolgateError('ALREADY_EXISTS', `${displayPath} already exists`);
    case 'ENOTEMPTY':
      return toolgateError('DIRECTORY_NOT_EMPTY', `${displayPath} is not empty`, {
        suggestion: 'Pass recursive: true to remove a directory and its contents.',
      });
    case 'EACCES':
    case 'EPERM':
      return toolgateError('PERMISSION_DENIED', `Permission denied: ${displayPath}`);
    case 'ENAMETOOLONG':
      return toolgateError('INVALID_PATH', `Path too long: ${displayPath.slice(0, 80)}…`);
    case 'ELOOP':
      return toolgateError('INVALID_PATH', `Too many levels of symbolic links: ${displayPath}`);
    case 'EXDEV':
      // A rename between two file systems: a symlink on one of the paths leads out of the workspace's.
      return toolgateError(
        'INVALID_PATH',
        `${displayPath} cannot be moved there: the two paths are on different file systems`,
        { suggestion: 'Check the paths with file_info; a directory on one of them may be a symlink.' },
      );
    case 'EFBIG':
      return toolgateError('QUOTA_EXCEEDED', `No space left to write ${displayPath}`, {
        suggestion: 'Write a smaller file, or split it into several.',
      });
    case 'ENOSPC':
    case 'EDQUOT':
      // The file system (or the service user's disk quota) is full: not this session's quota, so the same
      // 507 as the service's own storage failing for want of room.
      return toolgateError('INSUFFICIENT_STORAGE', `The disk is full: ${displayPath} could not be written`, {
        suggestion: 'Delete files that are no longer needed, or retry once the operator has freed space.',
      });
    case 'EROFS':
    case 'EIO':
    case 'EMFILE':
    case 'ENFILE':
      return toolgateError(
        'STORAGE_UNAVAILABLE',
        `The workspace storage failed on ${displayPath} (${code})`,
        {
          suggestion: 'Retry in a few seconds; if it persists, the operator should check the data volume.',
        },
      );
    default:
      // A write to a workspace also writes the service's own storage (the history's SQLite rows and
      // blobs): its SQLITE_FULL or SQLITE_BUSY on the way is that storage's error, not a bug.
      return (
        fromStorageError(err) ??
        // Not a caller's mistake we can name: a bug or an environment fault. Never echo the host path.
        toolgateError('INTERNAL_ERROR', `File operation failed on ${displayPath} (${code ?? 'unknown'})`, {
          cause: err,
        })
      );
  }
}

// 53100: PostgreSQL's disk_full.
const SPACE_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** A write refused for want of room: the file system (or the service user's quota) or SQLite is full. */
export const isOutOfSpace = (err: unknown): boolean => {
  if (isToolgateError(err)) return err.code === 'INSUFFICIENT_STORAGE';
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && SPACE_CODES.has(code);
};
const TRANSIENT_CODES = new Set(['EIO', 'EROFS', 'EMFILE', 'ENFILE', 'EACCES', 'EPERM', 'EAGAIN', 'EBUSY']);
/**
 * PostgreSQL's faults of the day: the connection refused, cut or timed out (errno, or the driver's
 * POSTGRES_UNAVAILABLE), and the SQLSTATEs of a server that cannot serve now: connection exceptions
 * (08…, but 08P01, a protocol violation: a bug), out of resources (53…), shutting down or starting
 * (57P01-57P03), a read-only standby (25006), a lock not had (55P03), a serialization failure or
 * deadlock (40001, 40P01).
 */
const POSTGRES_TRANSIENT =
  /^(?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|POSTGRES_UNAVAILABLE|08(?!P01)[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[123]|25006|55P03|40001|40P01)$/;

/**
 * The service's own storage failing (data dir, SQLite or PostgreSQL, job logs, history blobs) is a fault
 * of the day, not a bug: a full disk is 507 INSUFFICIENT_STORAGE, a busy, read-only, unreachable or broken
 * one 503 STORAGE_UNAVAILABLE, each with what to do. undefined when `err` is not such an error.
 */
export function fromStorageError(err: unknown): ToolgateError | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (SPACE_CODES.has(code)) {
    return toolgateError('INSUFFICIENT_STORAGE', `The server is out of disk space (${code})`, {
      suggestion:
        'Retry later; the operator must free space on the data volume. /readyz shows the disk state.',
      cause: err,
    });
  }
  if (
    TRANSIENT_CODES.has(code) ||
    POSTGRES_TRANSIENT.test(code) ||
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_LOCKED') ||
    code.startsWith('SQLITE_IOERR') ||
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_CANTOPEN')
  ) {
    return toolgateError('STORAGE_UNAVAILABLE', `The server's storage is unavailable right now (${code})`, {
      suggestion:
        'Retry in a few seconds; if it persists, the operator should check /readyz and the data volume.',
      headers: { 'Retry-After': '5' },
      cause: err,
    });
  }
  return undefined;
}
