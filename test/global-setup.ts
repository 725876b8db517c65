// The suite's temp dir: every run gets a fresh one (TMPDIR, so os.tmpdir() in the test workers and in
// every process they start points there), and the run fails if a test left anything in it. Helpers of
// other checkouts, and other runs, use the machine's temp dir at the same time: only what this run made
// is looked at. The leftovers are named, then removed, so a failed run leaves nothing behind either.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Caches kept there on purpose, shared by every app and process of the run: the bundled session runtime,
 * cached by content (src/runtime/bundle.ts), and tsx's transform cache (child servers run src/ with tsx).
 */
// Caches of tools the tests run, not of the tests: Node's compile cache, tsx's, and the scarf log npm ci's
// postinstall of a dependency writes (the bundle and install tests run npm ci).
const CACHES = [/^toolgate-runtime$/, /^tsx-[^/]+$/, /^node-compile-cache$/, /^scarf-js-history.*\.log$/];

/** What tests left in `dir`: every entry but the caches, as full paths. */
export function leftoversIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !CACHES.some((cache) => cache.test(name)))
    .sort()
    .map((name) => path.join(dir, name));
}

export default function setup(): () => void {
  const runDir = mkdtempSync(path.join(tmpdir(), 'toolgate-run-'));
  process.env.TMPDIR = runDir;
  return () => {
    const leftovers = leftoversIn(runDir);
    // Named before the removal, which may itself fail (a mount a crashed test left there).
    if (leftovers.length > 0) {
      // A teardown's throw is only logged by vitest ("error during close"): the exit code says it.
      process.exitCode = 1;
      console.error(
        `\nFAIL: tests left ${leftovers.length} entr${leftovers.length === 1 ? 'y' : 'ies'} in the temp dir ` +
          `(removed now; each test must remove what it makes, e.g. with tempDir from test/helpers/app.ts):\n  ` +
          `${leftovers.join('\n  ')}\n`,
      );
    }
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  };
}
