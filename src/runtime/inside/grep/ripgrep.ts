// The ripgrep engine: runs `rg --json` (no shell) over the resolved search path only, never following
// symlinks, and parses its event stream. rg runs inside the session runtime's sandbox like everything
// else that reads the workspace. Plain child_process: the runtime starts faster without execa.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { toolgateError } from '../../../lib/errors.js';
import {
  normalizeHitText,
  type EngineResult,
  type GrepCount,
  type GrepHit,
  type GrepQuery,
} from './types.js';

interface RgText {
  text?: string;
  bytes?: string;
}
interface RgEvent {
  type: string;
  data?: { path?: RgText; lines?: RgText; line_number?: number };
}

const relativeHitPath = (raw: string): string => path.posix.normalize(raw.replace(/^\.\//, ''));

const decode = (value: RgText | undefined): string =>
  value?.text ?? (value?.bytes ? Buffer.from(value.bytes, 'base64').toString('utf8') : '');

/**
 * The rg command line for a query; exported so the benchmark runs exactly what the tool runs. The
 * .gitignore policy (docs/search.md): rg reads the .gitignore files of the directories it walks itself;
 * those of directories above the searched one (up to the workspace root, never beyond:
 * --no-ignore-parent) come rebased to the root in `rulesFile` (an --ignore-file: below every walked
 * .gitignore in precedence, like git). No .ignore/.rgignore, global or .git/info/exclude rules.
 */
export function ripgrepArgs(query: GrepQuery, rulesFile?: string | false): string[] {
  const args = [
    // Counting: one `path NUL count` line per file (the path first even for a single file).
    ...(query.countOnly ? ['--count', '--with-filename', '--null'] : ['--json']),
    '--no-config',
    '--hidden',
    '--no-follow',
    '--no-require-git',
    '--no-ignore-parent',
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--glob=!.git',
  ];
  if (rulesFile) args.push('--ignore-file', rulesFile);
  if (query.caseInsensitive) args.push('--ignore-case');
  else args.push('--case-sensitive');
  if (query.fixedStrings) args.push('--fixed-strings');
  if (query.multiline) args.push('--multiline', '--multiline-dotall');
  if (query.context > 0 && !query.countOnly) args.push('--context', String(query.context));
  for (const glob of query.globs) args.push(`--glob=${glob}`);
  const targets = query.files ?? [path.relative(query.workspaceRoot, query.searchPath) || '.'];
  args.push('--regexp', query.pattern, '--', ...targets);
  return args;
}

/**
 * `rulesAbove`: the .gitignore rules of the directories above the searched one, rebased ('' for none).
 * They go through a private temporary file: rg cannot read an ignore file from node's stdin (a socket).
 */
export async function ripgrepEngine(
  query: GrepQuery,
  rgPath: string,
  rulesAbove: string,
): Promise<EngineResult> {
  if (!rulesAbove) return runRipgrep(query, rgPath);
  const dir = await mkdtemp(path.join(tmpdir(), 'toolgate-rg-'));
  try {
    const file = path.join(dir, 'ignore');
    await writeFile(file, rulesAbove, { mode: 0o600 });
    return await runRipgrep(query, rgPath, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runRipgrep(query: GrepQuery, rgPath: string, rulesFile?: string): Promise<EngineResult> {
  const args = ripgrepArgs(query, rulesFile);
  // An argument cannot hold a NUL byte (spawn refuses it): say so instead of failing the operation.
  if (args.some((arg) => arg.includes('\0'))) {
    throw toolgateError('INVALID_REGEX', 'A grep pattern or glob cannot contain a NUL character', {
      suggestion: 'To match a NUL byte, write \\x00 in the pattern (with fixed_strings off).',
    });
  }
  const child = spawn(rgPath, args, {
    cwd: query.workspaceRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  const cancel = () => child.kill('SIGKILL');
  query.signal.addEventListener('abort', cancel, { once: true });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
  });
  const hits: GrepHit[] = [];
  const counts: GrepCount[] = [];
  let capped = false;
  try {
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
      if (query.countOnly) {
        const nul = line.lastIndexOf('\0');
        if (nul < 0) continue;
        counts.push({ path: relativeHitPath(line.slice(0, nul)), count: Number(line.slice(nul + 1)) });
        continue;
      }
      const event = JSON.parse(line) as RgEvent;
      if ((event.type !== 'match' && event.type !== 'context') || !event.data) continue;
      const raw = decode(event.data.path);
      hits.push({
        path: relativeHitPath(raw),
        line: event.data.line_number ?? 0,
        text: normalizeHitText(decode(event.data.lines)),
        context: event.type === 'context',
      });
      if (hits.length >= query.maxHits) {
        capped = true;
        child.kill('SIGKILL');
        break;
      }
    }
  } finally {
    query.signal.removeEventListener('abort', cancel);
  }
  const exitCode = await exited;
  if (query.signal.aborted) throw query.signal.reason;
  if (!capped && exitCode === 2 && hits.length === 0 && counts.length === 0) {
    const message = stderr.trim();
    if (/regex|parse error/i.test(message)) {
      throw toolgateError('INVALID_REGEX', `Invalid pattern: ${message.slice(0, 1000)}`, {
        suggestion:
          'Fix the regular expression (ripgrep/Rust syntax), or pass fixed_strings: true to search literally.',
      });
    }
  }
  return query.countOnly ? { hits, counts, capped } : { hits, capped };
}
