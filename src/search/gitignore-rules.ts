// One .gitignore file's lines as rules: git's line syntax (comments, "!" negation, escapes, trailing
// "/" for directories only, a "/" anywhere anchoring the pattern to the file's directory) read here,
// the wildcards themselves matched by picomatch. Each rule judges one path by itself, never its parent
// directories: a walk does that by not entering an ignored directory (and ripgrep judges the same way).
import picomatch from 'picomatch';

export interface GitignoreRule {
  /** The glob, relative to the .gitignore's directory, without "!" or a trailing "/". */
  readonly glob: string;
  readonly negated: boolean;
  readonly directoryOnly: boolean;
  readonly test: (relative: string) => boolean;
}

const GLOB_OPTIONS = { dot: true, nobrace: true, noextglob: true, nonegate: true } as const;

/** The glob of a pattern: anchored ones as written, unanchored ones at any depth ("**\/" prefix). */
function globOf(pattern: string): string {
  // git's "[!a]" is picomatch's "[^a]".
  const glob = pattern.replace(/\[!/g, '[^');
  return glob.includes('/') ? glob.replace(/^\//, '') : `**/${glob}`;
}

/** Parses one line; undefined for blank lines and comments. */
export function parseRule(line: string): GitignoreRule | undefined {
  // Trailing spaces are dropped unless escaped with a backslash.
  let text = line.replace(/\r$/, '').replace(/(?<!\\) +$/, '');
  if (text === '' || text.startsWith('#')) return undefined;
  const negated = text.startsWith('!');
  if (negated) text = text.slice(1);
  else if (text.startsWith('\\!') || text.startsWith('\\#')) text = text.slice(1);
  const directoryOnly = text.endsWith('/');
  if (directoryOnly) text = text.replace(/\/+$/, '');
  if (text === '') return undefined;
  const glob = globOf(text);
  return { glob, negated, directoryOnly, test: picomatch(glob, GLOB_OPTIONS) };
}

export const parseRules = (text: string): GitignoreRule[] =>
  text.split('\n').flatMap((line) => parseRule(line) ?? []);

/**
 * The verdict of a file's rules on a path relative to its directory: the last matching rule decides;
 * undefined when none matches (an outer file's verdict then stands).
 */
export function verdict(rules: readonly GitignoreRule[], relative: string, isDirectory: boolean) {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i];
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.test(relative)) return rule.negated ? ('included' as const) : ('ignored' as const);
  }
  return undefined;
}

/**
 * The rules of the .gitignore in `dir` (workspace-relative, '' for the root) rewritten relative to the
 * workspace root, in .gitignore syntax: how ripgrep gets the files of directories above the one it
 * searches (it reads those below itself), with the same meaning.
 */
export function rebaseRules(rules: readonly GitignoreRule[], dir: string): string {
  return rules
    .map(
      (rule) =>
        `${rule.negated ? '!' : ''}/${dir ? `${dir}/` : ''}${rule.glob}${rule.directoryOnly ? '/' : ''}`,
    )
    .join('\n');
}
