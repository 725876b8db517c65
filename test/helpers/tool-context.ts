// toolContext(): a tool's `execute` called directly, with no HTTP and no pipeline policies, on a fresh
// session's temp workspace and the real services (createServices: real session runtime, real SQLite in a
// temp data dir). The input goes through the tool's own validator first (defaults applied, as the
// pipeline's validate step does), and the context is built the way the pipeline's last step builds it.
// Tests of what a tool does use this; tests of status codes, envelopes and policies stay on injectApp.
import { rmSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import type { ToolContext } from '../../src/contract/context.js';
import type { ToolLogger } from '../../src/lib/logger.js';
import type { OutputChunk } from '../../src/lib/output-chunk.js';
import { sessionPolicy, type SessionPolicyRequest } from '../../src/policies/permissions/session-policy.js';
import { createServices, type ServiceOptions, type Services } from '../../src/services.js';
import type { SessionRecord } from '../../src/store/sessions.js';
import { isToolgateError } from '../../src/lib/errors.js';
import { tempDir } from './app.js';
import { workspaceFiles, type WorkspaceFiles } from './workspace-files.js';
import { testSandbox } from './requires.js';

const silent: ToolLogger = { info() {}, warn() {}, error() {}, debug() {} };

export interface ToolSession extends WorkspaceFiles {
  readonly session: SessionRecord;
  /** The workspace directory on the host (for arranging files and checking results). */
  readonly dir: string;
  /** Validates `input` against the tool's schema and runs its execute; resolves to the data or throws. */
  run(tool: string, input?: unknown): Promise<any>;
  /**
   * run() that resolves either way: `{ data }`, or `{ error }` when the tool threw a ToolgateError (its
   * code, message, suggestion, details and the HTTP status the catalog maps it to). Other errors reject.
   */
  // Loosely typed like a response body: each tool returns its own shape, and error.details is open.
  attempt(tool: string, input?: unknown): Promise<{ data?: any; error?: any }>;
  /** run(), then the text an LLM gets for the data: the tool's render, or JSON when it has none. */
  rendered(tool: string, input?: unknown): Promise<string>;
  /** What the tool emitted (output chunks) in this session's runs, in order. */
  readonly output: OutputChunk[];
}

export interface ToolHarness {
  readonly services: Services;
  readonly dataDir: string;
  /** A new session (profile read-write unless given) with an empty workspace. */
  session(request?: SessionPolicyRequest): Promise<ToolSession>;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export async function toolContext(
  env: Record<string, string> = {},
  options: ServiceOptions & { dataDir?: string } = {},
): Promise<ToolHarness> {
  const dataDir = options.dataDir ?? tempDir('toolgate-tool-');
  const config = loadConfig({
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_SANDBOX: testSandbox(),
    TOOLGATE_RUNTIME_IMAGE: process.env.TOOLGATE_TEST_RUNTIME_IMAGE ?? '',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const services = await createServices(config, silent, options);
  let calls = 0;
  return {
    services,
    dataDir,
    async session(request = { profile: 'read-write' }) {
      const now = Date.now();
      const { session } = await services.sessions.create(
        sessionPolicy(request, config, services.registry, now),
        now,
      );
      await services.workspaces.create(session.id);
      await services.snapshots.baseline(session.id, undefined);
      const dir = services.workspaces.dirFor(session.id);
      const output: OutputChunk[] = [];
      const run = async (name: string, input: unknown = {}) => {
        const entry = services.registry.get(name);
        if (!entry) throw new Error(`no tool named ${name}`);
        const signal = new AbortController().signal;
        const ctx: ToolContext = {
          callId: `call_test_${calls++}`,
          session,
          ...services.callContext(session, signal),
          signal,
          logger: silent,
          limits: config.limits,
          services,
          emit: (chunk) => output.push(chunk),
        };
        return entry.tool.execute(entry.validator.validate(input), ctx);
      };
      return {
        session,
        dir,
        output,
        ...workspaceFiles(dir),
        run,
        async rendered(name, input) {
          const data: unknown = await run(name, input);
          const render = services.registry.get(name)?.tool.render;
          return render ? render(data) : JSON.stringify(data);
        },
        async attempt(name, input) {
          try {
            return { data: await run(name, input) };
          } catch (err) {
            if (isToolgateError(err)) return { error: err };
            throw err;
          }
        },
      };
    },
    async close({ keepData = false } = {}) {
      await services.close();
      // Runtime containers outlive the services by design: a test removes those it made with its data.
      if (!keepData && config.sandbox === 'docker')
        await (await import('./docker.js')).removeContainersOf(dataDir);
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
