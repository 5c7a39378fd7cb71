import { describe, it, expect } from 'vitest';
import {
  canSeeSource,
  canSeeTool,
  hasAccess,
  matchesAny,
  matchesPattern,
  type Principal,
} from '../../../gateway/auth/index.js';
import { validateConfig, type Access } from '../../../gateway/config/index.js';

function principal(access: Access, sourcePatterns: string[], toolPatterns: string[]): Principal {
  const result = validateConfig({ version: 1, workspaces: [{ name: 'demo' }] });
  if (!result.ok) throw new Error('fixture config invalid');
  return {
    keyId: 'AAAAAAAAAA',
    keyFingerprint: '000000000000',
    keyName: undefined,
    workspace: result.config.workspaces[0]!,
    access,
    sourcePatterns,
    toolPatterns,
    limits: undefined,
    toolDisclosure: 'all',
  };
}

describe('matchesPattern', () => {
  it('matches a literal pattern only against the whole string', () => {
    expect(matchesPattern('docs', 'docs')).toBe(true);
    expect(matchesPattern('docs', 'docs2')).toBe(false);
    expect(matchesPattern('docs', 'my-docs')).toBe(false);
  });

  it('lets * match any run of characters, including none', () => {
    expect(matchesPattern('*', 'anything')).toBe(true);
    expect(matchesPattern('*', '')).toBe(true);
    expect(matchesPattern('docs__*', 'docs__search')).toBe(true);
    expect(matchesPattern('docs__*', 'docs__')).toBe(true);
    expect(matchesPattern('*__search', 'wiki__search')).toBe(true);
    expect(matchesPattern('a*c*e', 'abcde')).toBe(true);
    expect(matchesPattern('a*c*e', 'abcdef')).toBe(false);
  });

  it('treats dots and other regex characters literally', () => {
    expect(matchesPattern('read.file', 'read.file')).toBe(true);
    expect(matchesPattern('read.file', 'readXfile')).toBe(false);
    expect(matchesPattern('a+b', 'aab')).toBe(false);
    expect(matchesPattern('a/b-c', 'a/b-c')).toBe(true);
    expect(matchesPattern('(x)', 'x')).toBe(false);
  });

  it('does not match a prefix or suffix of the value', () => {
    expect(matchesPattern('docs__*', 'other__docs__x')).toBe(false);
    expect(matchesPattern('*__read', 'wiki__read_all')).toBe(false);
  });

  it('gives the same answer when a pattern is reused', () => {
    expect(matchesPattern('x*', 'xy')).toBe(true);
    expect(matchesPattern('x*', 'yx')).toBe(false);
    expect(matchesPattern('x*', 'xy')).toBe(true);
  });
});

describe('matchesAny', () => {
  it('is true when one pattern matches and false for an empty list', () => {
    expect(matchesAny(['a', 'b*'], 'bee')).toBe(true);
    expect(matchesAny(['a', 'b*'], 'cee')).toBe(false);
    expect(matchesAny([], 'a')).toBe(false);
  });
});

describe('canSeeSource and canSeeTool', () => {
  const scoped = principal('read', ['docs', 'wiki-*'], ['docs__search', 'wiki-*__read*']);

  it('shows only sources matching the key source patterns', () => {
    expect(canSeeSource(scoped, 'docs')).toBe(true);
    expect(canSeeSource(scoped, 'wiki-eu')).toBe(true);
    expect(canSeeSource(scoped, 'crm')).toBe(false);
  });

  it('auth:key-patterns requires both the source and the tool pattern to match', () => {
    expect(canSeeTool(scoped, 'docs', 'docs__search')).toBe(true);
    expect(canSeeTool(scoped, 'docs', 'docs__delete')).toBe(false);
    expect(canSeeTool(scoped, 'wiki-eu', 'wiki-eu__read_page')).toBe(true);
    expect(canSeeTool(scoped, 'crm', 'docs__search')).toBe(false);
  });

  it('shows everything to a key with * patterns', () => {
    const open = principal('read', ['*'], ['*']);
    expect(canSeeTool(open, 'any', 'any__tool')).toBe(true);
  });
});

describe('hasAccess', () => {
  it('lets a write key do reads and writes', () => {
    const writer = principal('write', ['*'], ['*']);
    expect(hasAccess(writer, 'read')).toBe(true);
    expect(hasAccess(writer, 'write')).toBe(true);
  });

  it('lets a read key read but not write', () => {
    const reader = principal('read', ['*'], ['*']);
    expect(hasAccess(reader, 'read')).toBe(true);
    expect(hasAccess(reader, 'write')).toBe(false);
  });
});
