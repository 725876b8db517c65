// One language server spoken to over LSP on a process's stdio. The process is one the session runtime
// started like a command (same sandbox, namespace and limits), so the server sees the workspace exactly
// as commands do; paths in and out are workspace-relative, translated at this edge. Every request has
// a budget: a server that does not answer in time yields `undefined`, and the caller falls back to the
// syntax index.
import { pathToFileURL, fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node.js';

/** What the client needs of a started process (a runtime's SandboxedProcess is one). */
export interface ServerProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly exited: Promise<unknown>;
  kill(): void;
}

export interface Position {
  /** 1-based, as every code tool counts. */
  line: number;
  column: number;
}

export interface Location extends Position {
  path: string;
}

export interface Diagnostic {
  line: number;
  column: number;
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  code?: string;
}

interface WireLocation {
  uri: string;
  range: { start: { line: number; character: number } };
}

interface WireDiagnostic {
  range: { start: { line: number; character: number } };
  severity?: number;
  message: string;
  code?: string | number;
}

export interface WireTextEdit {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  newText: string;
}

interface WireWorkspaceEdit {
  changes?: Record<string, WireTextEdit[]>;
  documentChanges?: Array<{ textDocument: { uri: string }; edits: WireTextEdit[] } | { kind: string }>;
}

const SEVERITIES = ['error', 'warning', 'info', 'hint'] as const;

/** The promise's value, or undefined once `ms` have passed. */
/** How long a file's diagnostics must stay unchanged to count as the server's answer (see diagnostics). */
const SETTLE_MS = 150;

export function timeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Hover contents (MarkupContent, a MarkedString or a list of them) as plain text. */
function hoverText(contents: unknown): string {
  if (typeof contents === 'string') return contents.trim();
  if (Array.isArray(contents)) return contents.map(hoverText).filter(Boolean).join('\n\n');
  if (contents && typeof contents === 'object' && 'value' in contents) {
    const { value } = contents as { value: unknown };
    return typeof value === 'string' ? value.trim() : '';
  }
  return '';
}

export class LspClient {
  private readonly versions = new Map<string, number>();
  /** The text last sent for each open file: a sync of the same text sends nothing. */
  private readonly texts = new Map<string, string>();
  private readonly published = new Map<
    string,
    { version?: number; seq: number; diagnostics: Diagnostic[] }
  >();
  /** Publications so far, and the count when each file's text was last sent: a server that does not
   * version its diagnostics (typescript-language-server) is current for a file only after that. */
  private publications = 0;
  private readonly sentAt = new Map<string, number>();
  private readonly waiters = new Set<() => void>();
  private closed = false;

  private constructor(
    private readonly connection: ProtocolConnection,
    private readonly process: ServerProcess,
    /** The workspace root as the server sees it (inside the sandbox). */
    private readonly root: string,
  ) {
    connection.onNotification(
      'textDocument/publishDiagnostics',
      (params: { uri: string; version?: number; diagnostics: WireDiagnostic[] }) => {
        const file = this.relative(params.uri);
        if (file === undefined) return;
        this.published.set(file, {
          seq: ++this.publications,
          ...(params.version !== undefined ? { version: params.version } : {}),
          diagnostics: params.diagnostics.map((d) => ({
            line: d.range.start.line + 1,
            column: d.range.start.character + 1,
            severity: SEVERITIES[(d.severity ?? 1) - 1] ?? 'error',
            message: d.message,
            ...(d.code !== undefined ? { code: String(d.code) } : {}),
          })),
        });
        for (const wake of this.waiters) wake();
      },
    );
    // Servers ask for settings; the defaults serve.
    connection.onRequest('workspace/configuration', (params: { items: unknown[] }) =>
      params.items.map(() => ({})),
    );
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('client/registerCapability', () => null);
    void process.exited.then(() => (this.closed = true));
  }

  /** Starts the LSP session: `initialize` within `budgetMs`, else the process is stopped and this throws. */
  static async start(process: ServerProcess, root: string, budgetMs: number): Promise<LspClient> {
    const connection = createProtocolConnection(
      new StreamMessageReader(process.stdout),
      new StreamMessageWriter(process.stdin),
    );
    const client = new LspClient(connection, process, root);
    connection.listen();
    const rootUri = pathToFileURL(root).href;
    const initialized = await timeout(
      connection.sendRequest('initialize', {
        processId: null,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: 'workspace' }],
        capabilities: {
          workspace: { configuration: true, workspaceFolders: true },
          textDocument: {
            publishDiagnostics: { versionSupport: true },
            synchronization: { didSave: false },
          },
        },
      }),
      budgetMs,
    );
    if (!initialized) {
      client.close();
      throw new Error(`the language server did not initialize within ${budgetMs} ms`);
    }
    await connection.sendNotification('initialized', {});
    return client;
  }

  get alive(): boolean {
    return !this.closed;
  }

  private uri(file: string): string {
    return pathToFileURL(path.posix.join(this.root, file)).href;
  }

  private relative(uri: string): string | undefined {
    if (!uri.startsWith('file:')) return undefined;
    const relative = path.posix.relative(this.root, fileURLToPath(uri));
    return relative.startsWith('..') ? undefined : relative;
  }

  /** The files told to the server so far (their text may have changed in the workspace since). */
  openFiles(): string[] {
    return [...this.versions.keys()];
  }

  /**
   * Tells the server a file's current text (opened the first time, a full change after; nothing when
   * the text is the one last sent) and returns its version.
   */
  async sync(file: string, languageId: string, text: string): Promise<number> {
    const uri = this.uri(file);
    const previous = this.versions.get(file);
    if (previous !== undefined && this.texts.get(file) === text) return previous;
    const version = (previous ?? 0) + 1;
    this.versions.set(file, version);
    this.texts.set(file, text);
    this.sentAt.set(file, this.publications);
    if (previous === undefined)
      await this.connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId, version, text },
      });
    else
      await this.connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ text }],
      });
    return version;
  }

  private async locations(method: string, file: string, at: Position, budgetMs: number, extra = {}) {
    if (this.closed) return undefined;
    const answer = await timeout(
      this.connection.sendRequest(method, {
        textDocument: { uri: this.uri(file) },
        position: { line: at.line - 1, character: at.column - 1 },
        ...extra,
      }) as Promise<WireLocation[] | WireLocation | null>,
      budgetMs,
    ).catch(() => undefined);
    if (answer === undefined) return undefined;
    const list = Array.isArray(answer) ? answer : answer ? [answer] : [];
    const out: Location[] = [];
    for (const location of list) {
      const relative = this.relative(location.uri);
      if (relative === undefined) continue;
      const { line, character } = location.range.start;
      out.push({ path: relative, line: line + 1, column: character + 1 });
    }
    return out;
  }

  /** Uses of the symbol at a position (not its declaration), or undefined past the budget. */
  references(file: string, at: Position, budgetMs: number): Promise<Location[] | undefined> {
    return this.locations('textDocument/references', file, at, budgetMs, {
      context: { includeDeclaration: false },
    });
  }

  /** Where the symbol at a position is defined, or undefined past the budget. */
  definition(file: string, at: Position, budgetMs: number): Promise<Location[] | undefined> {
    return this.locations('textDocument/definition', file, at, budgetMs);
  }

  /**
   * The text edits per workspace file that rename the symbol at a position to `newName` (positions
   * 0-based, as the server gives them), null when the server finds nothing to rename there, undefined
   * past the budget. Edits outside the workspace are refused by the caller (they are listed under `..`).
   */
  async rename(
    file: string,
    at: Position,
    newName: string,
    budgetMs: number,
  ): Promise<Map<string, WireTextEdit[]> | null | undefined> {
    if (this.closed) return undefined;
    const answer = (await timeout(
      this.connection.sendRequest('textDocument/rename', {
        textDocument: { uri: this.uri(file) },
        position: { line: at.line - 1, character: at.column - 1 },
        newName,
      }),
      budgetMs,
    )) as WireWorkspaceEdit | null | undefined;
    if (answer === undefined || answer === null) return answer;
    const out = new Map<string, WireTextEdit[]>();
    const add = (uri: string, edits: WireTextEdit[]) => {
      const relative = this.relative(uri) ?? `../${uri}`;
      out.set(relative, [...(out.get(relative) ?? []), ...edits]);
    };
    for (const [uri, edits] of Object.entries(answer.changes ?? {})) add(uri, edits);
    for (const change of answer.documentChanges ?? []) {
      if (!('textDocument' in change)) throw new Error(`the server's rename also ${change.kind}s files`);
      add(change.textDocument.uri, change.edits);
    }
    return out;
  }

  /** The server's hover text at a position (type and docs), or undefined past the budget or when none. */
  async hover(file: string, at: Position, budgetMs: number): Promise<string | undefined> {
    if (this.closed) return undefined;
    const answer = (await timeout(
      this.connection.sendRequest('textDocument/hover', {
        textDocument: { uri: this.uri(file) },
        position: { line: at.line - 1, character: at.column - 1 },
      }),
      budgetMs,
    ).catch(() => undefined)) as { contents?: unknown } | null | undefined;
    return answer?.contents === undefined ? undefined : hoverText(answer.contents) || undefined;
  }

  /**
   * The diagnostics the server published for a file at (or after) `version`, waiting at most
   * `budgetMs`; undefined when none came in time.
   */
  async diagnostics(file: string, version: number, budgetMs: number): Promise<Diagnostic[] | undefined> {
    const deadline = Date.now() + budgetMs;
    const current = () => {
      const entry = this.published.get(file);
      const fresh =
        entry?.version !== undefined
          ? entry.version >= version
          : entry && entry.seq > (this.sentAt.get(file) ?? 0);
      return fresh ? entry : undefined;
    };
    if (!current()) await this.nextPublication(() => current() !== undefined, deadline - Date.now());
    // Servers publish a version in steps: pyright checks in time slices and publishes what a slice
    // found (the parse's empty list, then the checker's errors), typescript-language-server the
    // syntactic then the semantic pass. A fresh list is taken once no newer one came for SETTLE_MS.
    for (let seen = current(); seen; seen = current()) {
      const settled = Math.min(SETTLE_MS, deadline - Date.now());
      if (settled <= 0) break;
      const newer = await this.nextPublication(() => this.published.get(file) !== seen, settled);
      if (!newer) break;
    }
    return current()?.diagnostics;
  }

  /** Resolves true once `check` holds after a publication, false after `ms`. */
  private async nextPublication(check: () => boolean, ms: number): Promise<boolean> {
    if (ms <= 0) return false;
    let wake!: () => void;
    const changed = new Promise<boolean>((resolve) => (wake = () => resolve(true)));
    const waiter = () => check() && wake();
    this.waiters.add(waiter);
    try {
      return (await timeout(changed, ms)) ?? false;
    } finally {
      this.waiters.delete(waiter);
    }
  }

  /** Ends the session politely if the server listens, and stops its process in any case. */
  close(): void {
    if (!this.closed) {
      this.closed = true;
      void timeout(this.connection.sendRequest('shutdown'), 500)
        .then(() => this.connection.sendNotification('exit'))
        .catch(() => undefined)
        .finally(() => {
          this.connection.dispose();
          this.process.kill();
        });
    } else this.process.kill();
  }
}
