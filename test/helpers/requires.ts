// What a test needs from the machine beyond Node and npm ci: a bubblewrap that works here, ripgrep,
// python3, git, redis-server, Chromium, root, a PostgreSQL server. `npm test` must pass on a machine without them
// (macOS, an unprivileged container, a newcomer's laptop): a test that needs a missing piece skips, and
// one printed line says what is missing and how to get it; everything else runs, on the unisolated
// runtime when bwrap does not work. `.ci/run` installs everything (and starts PostgreSQL) and sets
// TOOLGATE_TEST_REQUIRE_ALL=1, which turns each such skip into a failure, so nothing goes untested
// there. Each piece is probed once per worker.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findBwrap, findPrlimit } from '../../src/runtime/runner/host.js';

export type Piece = 'bwrap' | 'ripgrep' | 'python3' | 'git' | 'redis' | 'chromium' | 'root' | 'postgres';

/** Chromium for the console tests (Debian's package unless TOOLGATE_CHROMIUM names another). */
export const CHROMIUM = process.env.TOOLGATE_CHROMIUM ?? '/usr/bin/chromium';

const runs = (command: string, args: string[]) => {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return result.error === undefined && result.status === 0;
};

/** bwrap as the runtime starts it: present, with prlimit, and able to make its namespaces here. */
function bwrapWorks(): boolean {
  const bwrap = findBwrap();
  if (!bwrap || !findPrlimit()) return false;
  const args = ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc'];
  return runs(bwrap, [...args, '--dev', '/dev', 'true']);
}

const PIECES: Record<Piece, { what: string; how: string; present: () => boolean }> = {
  bwrap: {
    what: 'a working bubblewrap (bwrap)',
    how: 'apt-get install bubblewrap, on a host that allows unprivileged user namespaces',
    present: bwrapWorks,
  },
  ripgrep: { what: 'ripgrep (rg)', how: 'apt-get install ripgrep', present: () => runs('rg', ['--version']) },
  // Commands the tests run in a session (the runtime sees the host's /usr) or on the host.
  python3: {
    what: 'python3',
    how: 'apt-get install python3',
    present: () => runs('python3', ['--version']),
  },
  git: { what: 'git', how: 'apt-get install git', present: () => runs('git', ['--version']) },
  redis: {
    what: 'redis-server',
    how: 'apt-get install redis-server',
    present: () => runs('redis-server', ['--version']),
  },
  chromium: {
    what: `Chromium (${CHROMIUM})`,
    how: 'apt-get install chromium, or TOOLGATE_CHROMIUM=<path to a Chromium>',
    present: () => existsSync(CHROMIUM),
  },
  postgres: {
    what: 'a PostgreSQL server for tests (TOOLGATE_TEST_DATABASE_URL)',
    how: '.ci/run starts one; or TOOLGATE_TEST_DATABASE_URL=postgres://user:password@127.0.0.1/db, a role that may create schemas there',
    present: () => Boolean(process.env.TOOLGATE_TEST_DATABASE_URL),
  },
  root: {
    what: 'root',
    how: 'run the suite as root (these tests mount small file systems)',
    present: () => process.getuid?.() === 0,
  },
};

const probed = new Map<Piece, boolean>();

/** Whether this machine has `piece` (probed once per worker). */
export function has(piece: Piece): boolean {
  let present = probed.get(piece);
  if (present === undefined) {
    present = PIECES[piece].present();
    probed.set(piece, present);
  }
  return present;
}

const requireAll = () => process.env.TOOLGATE_TEST_REQUIRE_ALL === '1';

/**
 * For `describe.skipIf` / `it.skipIf`: true when one of `pieces` is missing, after printing one line that
 * names what is missing, how to get it, and which tests skip; under TOOLGATE_TEST_REQUIRE_ALL=1 it
 * throws instead, failing the file.
 */
export function needs(pieces: Piece | Piece[], tests: string): boolean {
  const missing = [pieces].flat().filter((piece) => !has(piece));
  if (missing.length === 0) return false;
  const line = `skipped ${tests}: needs ${missing.map((p) => `${PIECES[p].what} (${PIECES[p].how})`).join(' and ')}`;
  if (requireAll()) throw new Error(`TOOLGATE_TEST_REQUIRE_ALL=1: ${line}`);
  console.warn(line);
  return true;
}

let saidUnisolated = false;

/** Falls back to the unisolated runtime, saying so once per worker (a failure under REQUIRE_ALL). */
function unisolated(): 'none' {
  const line = `tests run on the unisolated runtime: ${PIECES.bwrap.what} is missing (${PIECES.bwrap.how})`;
  if (requireAll()) throw new Error(`TOOLGATE_TEST_REQUIRE_ALL=1: ${line}`);
  if (!saidUnisolated) console.warn(line);
  saidUnisolated = true;
  return 'none';
}

/**
 * The TOOLGATE_SANDBOX the suite's apps start with: the project's (TOOLGATE_TEST_SANDBOX, `none` in
 * .ci/run's second pass), else bwrap where it works, else the unisolated runtime.
 */
export function testSandbox(): string {
  const chosen = process.env.TOOLGATE_TEST_SANDBOX;
  if (chosen) return chosen;
  return has('bwrap') ? 'auto' : unisolated();
}

/** For files that test commands on bwrap in both passes: bwrap where it works, else the unisolated runtime. */
export function bwrapElseNone(): 'bwrap' | 'none' {
  return has('bwrap') ? 'bwrap' : unisolated();
}

/** For tests run once per runtime (`describe.each`): bwrap (`auto`) where it works, and `none`. */
export function sandboxesFor(tests: string): ('auto' | 'none')[] {
  return needs('bwrap', `${tests} on the bwrap runtime`) ? ['none'] : ['auto', 'none'];
}
