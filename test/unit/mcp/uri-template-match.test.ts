import { describe, expect, it } from 'vitest';
import { templateMatcher } from '../../../gateway/mcp/uri-template-match.js';

describe('URI template matching (bare URI routing, issue 24)', () => {
  it('matches expansions of simple, reserved and prefixed expressions', () => {
    expect(templateMatcher('test://template/{id}/data').test('test://template/123/data')).toBe(true);
    expect(templateMatcher('test://template/{id}/data').test('test://template/1/2/data')).toBe(false);
    expect(templateMatcher('test://template/{id}/data').test('test://template/123/datax')).toBe(false);
    expect(templateMatcher('file:///{+path}').test('file:///a/b/c.txt')).toBe(true);
    expect(templateMatcher('repo://x{/segments}').test('repo://x/a/b')).toBe(true);
    expect(templateMatcher('search://q{?term,limit}').test('search://q?term=a&limit=2')).toBe(true);
    expect(templateMatcher('search://q{?term}').test('search://other')).toBe(false);
  });

  it('treats template metacharacters in literal parts literally', () => {
    expect(templateMatcher('a.b://{x}').test('aXb://1')).toBe(false);
    expect(templateMatcher('a.b://{x}').test('a.b://1')).toBe(true);
  });

  it('refuses malformed templates instead of guessing', () => {
    expect(templateMatcher('test://{unclosed').test('test://{unclosed')).toBe(false);
    expect(templateMatcher('test://{}').test('test://')).toBe(false);
    expect(templateMatcher('test://{!bad}').test('test://x')).toBe(false);
  });

  it('stays fast on adjacent expressions and long non-matching input', () => {
    const matcher = templateMatcher('x://{a}{b}{c}{d}{e}{f}/end');
    const started = performance.now();
    expect(matcher.test(`x://${'a'.repeat(2000)}/nope`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
