// The .gitignore policy (src/search/gitignore.ts, docs/search.md) as a table: a tree of .gitignore
// files, and for each path whether a search of a given directory leaves it out. No disk, no runtime.
import { describe, expect, it } from 'vitest';
import { GitignorePolicy, ruleDirsOf } from '../../src/search/gitignore.js';
import { parseRule, parseRules, rebaseRules } from '../../src/search/gitignore-rules.js';

/** .gitignore files by directory ('' for the workspace root). */
const TREE: Record<string, string> = {
  '': ['# build output', 'dist/', '*.log', '!keep.log', '/root-only.txt', 'docs/*.tmp', ''].join('\n'),
  sub: ['b.txt', '/anchored.txt', 'deep/a.txt', '!important.log', 'cache/', '[!x]y.md'].join('\n'),
  'sub/deep': ['!b.txt', 'trailing\\ ', '\\#hash', '\\!bang'].join('\n'),
  other: ['*'].join('\n'),
};

const policy = () => new GitignorePolicy((dir) => TREE[dir]);

// [path, is a directory, searched from, ignored]
const CASES: [string, boolean, string, boolean][] = [
  ['src/a.ts', false, '', false],
  ['dist', true, '', true],
  ['dist', false, '', false], // "dist/" matches directories only
  ['src/dist/x.js', false, '', true], // under an ignored directory at any depth
  ['app.log', false, '', true],
  ['src/deep/app.log', false, '', true],
  ['keep.log', false, '', false], // re-included by "!"
  ['root-only.txt', false, '', true],
  ['src/root-only.txt', false, '', false], // a leading "/" anchors to the .gitignore's directory
  ['docs/a.tmp', false, '', true],
  ['docs/sub/a.tmp', false, '', false], // a "/" in the middle anchors too; "*" stops at "/"
  ['sub/b.txt', false, '', true],
  ['sub/x/b.txt', false, '', true],
  ['b.txt', false, '', false], // a .gitignore applies only under its own directory
  ['sub/anchored.txt', false, '', true],
  ['sub/x/anchored.txt', false, '', false],
  ['sub/deep/a.txt', false, '', true],
  ['sub/x/deep/a.txt', false, '', false],
  ['sub/important.log', false, '', false], // a deeper file re-includes what the root ignored
  ['sub/deep/b.txt', false, '', false], // ... and the deepest file decides
  ['sub/cache/x.ts', false, '', true],
  ['sub/ay.md', false, '', true], // "[!x]" is a negated class, as in git
  ['sub/xy.md', false, '', false],
  ['sub/deep/trailing ', false, '', true], // an escaped trailing space is kept
  ['sub/deep/#hash', false, '', true],
  ['sub/deep/!bang', false, '', true],
  ['other/anything.ts', false, '', true],
  ['other/.gitignore', false, '', true],
  // Searching inside an ignored directory: it and its parents are not judged, what is below still is.
  ['dist/x.js', false, 'dist', false],
  ['dist/x.log', false, 'dist', true],
  ['sub/cache/x.ts', false, 'sub/cache', false],
  ['sub/cache/b.txt', false, 'sub/cache', true], // sub/.gitignore, above the searched directory, applies
  ['sub/deep/a.txt', false, 'sub/deep', true],
  ['sub/deep/inner/dist/x.js', false, 'sub/deep', true],
];

describe('the .gitignore policy', () => {
  it.each(CASES)('%s (directory: %s, searching "%s") → ignored: %s', (file, isDir, from, ignored) => {
    expect(policy().ignored(file, isDir, from)).toBe(ignored);
  });

  it('names the directories whose .gitignore files apply, outermost first', () => {
    expect(ruleDirsOf('a.ts')).toEqual(['']);
    expect(ruleDirsOf('sub/deep/a.ts')).toEqual(['', 'sub', 'sub/deep']);
  });

  it('reads each .gitignore once, and not at all where a walk saw none', () => {
    const read: string[] = [];
    const counted = new GitignorePolicy((dir) => {
      read.push(dir);
      return TREE[dir];
    });
    counted.noRulesIn('src');
    for (const file of ['src/a.ts', 'src/b.ts', 'src/c/d.ts', 'sub/x.ts']) counted.ignored(file, false);
    expect(read.sort()).toEqual(['', 'src/c', 'sub']);
  });
});

describe('.gitignore lines', () => {
  it('skips blanks and comments and reads negation, anchoring and directory-only rules', () => {
    expect(parseRule('')).toBeUndefined();
    expect(parseRule('   ')).toBeUndefined();
    expect(parseRule('# note')).toBeUndefined();
    expect(parseRule('!/build/')).toMatchObject({ glob: 'build', negated: true, directoryOnly: true });
    expect(parseRule('*.log')).toMatchObject({ glob: '**/*.log', negated: false, directoryOnly: false });
    expect(parseRule('a/b')).toMatchObject({ glob: 'a/b' });
    expect(parseRule('x.txt\r')).toMatchObject({ glob: '**/x.txt' });
  });

  it('rebases a directory’s rules to the workspace root for ripgrep, keeping their meaning', () => {
    expect(rebaseRules(parseRules(TREE.sub), 'sub').split('\n')).toEqual([
      '/sub/**/b.txt',
      '/sub/anchored.txt',
      '/sub/deep/a.txt',
      '!/sub/**/important.log',
      '/sub/**/cache/',
      '/sub/**/[^x]y.md',
    ]);
    expect(rebaseRules(parseRules('dist/\n!keep.log'), '')).toBe('/**/dist/\n!/**/keep.log');
  });

  it('gives ripgrep the rules above the searched directory only', () => {
    const rules = policy();
    expect(rules.rulesAbove('')).toBe('');
    expect(rules.rulesAbove('sub/deep').split('\n')).toEqual([
      ...rebaseRules(parseRules(TREE['']), '').split('\n'),
      ...rebaseRules(parseRules(TREE.sub), 'sub').split('\n'),
    ]);
  });
});
