// Connector include/exclude globs: `**` spans directories, `*` and `?` stay within one segment,
// every other character is literal, and a pattern matches the whole relative path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globToRegExp, matchesGlobs } from '../../../../gateway/knowledge/connectors/index.js';

function matches(pattern: string, path: string): boolean {
  return matchesGlobs(path, [pattern]);
}

describe('matchesGlobs', () => {
  it('matches **/*.md at any depth, including the root, and only .md files', () => {
    expect(matches('**/*.md', 'a.md')).toBe(true);
    expect(matches('**/*.md', 'x/a.md')).toBe(true);
    expect(matches('**/*.md', 'x/y/a.md')).toBe(true);
    expect(matches('**/*.md', 'a.mdx')).toBe(false);
    expect(matches('**/*.md', 'x/a.md/b.txt')).toBe(false);
    expect(matches('**/*.md', 'amd')).toBe(false);
  });

  it('anchors a directory prefix: docs/**/*.md', () => {
    expect(matches('docs/**/*.md', 'docs/a.md')).toBe(true);
    expect(matches('docs/**/*.md', 'docs/x/y/a.md')).toBe(true);
    expect(matches('docs/**/*.md', 'other/docs/a.md')).toBe(false);
    expect(matches('docs/**/*.md', 'docsx/a.md')).toBe(false);
    expect(matches('docs/**/*.md', 'a.md')).toBe(false);
  });

  it('keeps * and ? within one path segment', () => {
    expect(matches('*.md', 'a.md')).toBe(true);
    expect(matches('*.md', 'x/a.md')).toBe(false);
    expect(matches('docs/*', 'docs/a')).toBe(true);
    expect(matches('docs/*', 'docs/a/b')).toBe(false);
    expect(matches('?.md', 'a.md')).toBe(true);
    expect(matches('?.md', 'ab.md')).toBe(false);
    expect(matches('a?b', 'a/b')).toBe(false);
  });

  it('lets a trailing ** match everything below a directory', () => {
    expect(matches('**/node_modules/**', 'node_modules/x/y.js')).toBe(true);
    expect(matches('**/node_modules/**', 'a/node_modules/y.js')).toBe(true);
    expect(matches('**/node_modules/**', 'node_modules/')).toBe(true);
    expect(matches('**/node_modules/**', 'a/my_node_modules/y.js')).toBe(false);
  });

  it('treats regex metacharacters literally', () => {
    expect(matches('a+b.(md)', 'a+b.(md)')).toBe(true);
    expect(matches('a+b.(md)', 'aab.md')).toBe(false);
    expect(matches('[ab].md', 'a.md')).toBe(false);
    expect(matches('[ab].md', '[ab].md')).toBe(true);
    expect(matches('$^|{}\\.txt', '$^|{}\\.txt')).toBe(true);
  });

  it('matches when any pattern matches and never with no patterns', () => {
    expect(matchesGlobs('a.txt', ['**/*.md', '**/*.txt'])).toBe(true);
    expect(matchesGlobs('a.json', ['**/*.md', '**/*.txt'])).toBe(false);
    expect(matchesGlobs('a.md', [])).toBe(false);
  });

  it('matches a pattern without wildcards only against itself', () => {
    const segment = fc.string({
      unit: fc.constantFrom('a', 'b', '.', '+', '(', ')', '[', ']', '$', '^', '|', '\\'),
      minLength: 1,
      maxLength: 6,
    });
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
    fc.assert(
      fc.property(path, path, (pattern, other) => {
        expect(globToRegExp(pattern).test(pattern)).toBe(true);
        expect(matches(pattern, other)).toBe(pattern === other);
      }),
      { numRuns: 300 },
    );
  });

  it('matches **/*.ext exactly the paths whose last segment ends in .ext', () => {
    const segment = fc.string({ unit: fc.constantFrom('a', 'b', '.', 'm', 'd'), minLength: 1, maxLength: 6 });
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
    fc.assert(
      fc.property(path, (p) => {
        expect(matches('**/*.md', p)).toBe(p.split('/').at(-1)!.endsWith('.md'));
      }),
      { numRuns: 300 },
    );
  });
});
