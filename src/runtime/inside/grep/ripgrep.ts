// The ripgrep engine: runs `rg --json` (execa, no shell) over the resolved search path only, never
// following symlinks, and parses its event stream. rg runs on the host, which is fine for a read-only
// search confined to the workspace directory.
import path from 'node:path';
import { execa } from 'execa';
import { toolgateError } from '../../../core/errors.js';
import { normalizeHitText, type EngineResult, type GrepHit, type GrepQuery } from './types.js';

interface RgText {
  text?: string;
  bytes?: string;
}
interface RgEvent {
  type: string;
  data?: { path?: RgText; lines?: RgText; line_number?: number };
}

const decode = (value: RgText | undefined): string =>
  value?.text ?? (value?.bytes ? Buffer.from(value.bytes, 'base64').toString('utf8') : '');

/** The rg command line for a query; exported so the benchmark runs exactly what the tool runs. */
export function ripgrepArgs(query: GrepQuery, hasRootGitignore: boolean): string[] {
  const args = [
    '--json',
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
  if (hasRootGitignore) args.push('--ignore-file', path.join(query.workspaceRoot, '.gitignore'));
  if (query.caseInsensitive) args.push('--ignore-case');
  else args.push('--case-sensitive');
  if (query.fixedStrings) args.push('--fixed-strings');
  if (query.multiline) args.push('--multiline', '--multiline-dotall');
  if (query.context > 0) args.push('--context', String(query.context));
  for (const glob of query.globs) args.push(`--glob=${glob}`);
  const target = path.relative(query.workspaceRoot, query.searchPath) || '.';
  args.push('--regexp', query.pattern, '--', target);
  return args;
}

export async function ripgrepEngine(
  query: GrepQuery,
  rgPath: string,
  hasRootGitignore: boolean,
): Promise<EngineResult> {
  const subprocess = execa(rgPath, ripgrepArgs(query, hasRootGitignore), {
    cwd: query.workspaceRoot,
    reject: false,
    buffer: { stdout: false, stderr: true },
    maxBuffer: { stderr: 64 * 1024 },
    cancelSignal: query.signal,
    stdin: 'ignore',
  });
  const hits: GrepHit[] = [];
  let capped = false;
  for await (const line of subprocess) {
    const event = JSON.parse(line) as RgEvent;
    if ((event.type !== 'match' && event.type !== 'context') || !event.data) continue;
    const raw = decode(event.data.path);
    hits.push({
      path: path.posix.normalize(raw.replace(/^\.\//, '')),
      line: event.data.line_number ?? 0,
      text: normalizeHitText(decode(event.data.lines)),
      context: event.type === 'context',
    });
    if (hits.length >= query.maxHits) {
      capped = true;
      subprocess.kill();
      break;
    }
  }
  const result = await subprocess;
  if (query.signal.aborted) throw query.signal.reason;
  if (!capped && result.exitCode === 2 && hits.length === 0) {
    const message = String(result.stderr ?? '').trim();
    if (/regex|parse error/i.test(message)) {
      throw toolgateError('INVALID_REGEX', `Invalid pattern: ${message.slice(0, 1000)}`, {
        suggestion:
          'Fix the regular expression (ripgrep/Rust syntax), or pass fixed_strings: true to search literally.',
      });
    }
  }
  return { hits, capped };
}
