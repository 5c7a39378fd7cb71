import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { MAX_TOOL_NAME, NAMESPACE_SEPARATOR, namespacedToolName } from '../../../gateway/discovery/index.js';

describe('namespacedToolName', () => {
  it('joins source and tool with a double underscore', () => {
    expect(NAMESPACE_SEPARATOR).toBe('__');
    expect(namespacedToolName('src', 'tool')).toBe('src__tool');
  });

  it('keeps a name of exactly 64 characters as it is', () => {
    const tool = 'x'.repeat(MAX_TOOL_NAME - 'src__'.length);
    expect(namespacedToolName('src', tool)).toBe(`src__${tool}`);
    expect(namespacedToolName('src', tool)).toHaveLength(64);
  });

  it('cuts a longer name to exactly 64 characters ending in an 8-hex hash suffix', () => {
    const tool = 'y'.repeat(60);
    const name = namespacedToolName('source', tool);
    expect(name).toHaveLength(MAX_TOOL_NAME);
    expect(name).toMatch(/^source__y+_[0-9a-f]{8}$/);
    const suffix = createHash('sha256').update(`source__${tool}`).digest('hex').slice(0, 8);
    expect(name.endsWith(`_${suffix}`)).toBe(true);
    expect(name.startsWith(`source__${tool}`.slice(0, 55))).toBe(true);
  });

  it('cuts a name one character over the limit', () => {
    expect(namespacedToolName('src', 'z'.repeat(60))).toHaveLength(64);
  });

  it('is deterministic', () => {
    const tool = 'search_every_document_in_the_workspace_with_all_filters_enabled_v2';
    expect(namespacedToolName('docs', tool)).toBe(namespacedToolName('docs', tool));
  });

  it('keeps two long names that share a prefix distinct', () => {
    const prefix = 'p'.repeat(70);
    const a = namespacedToolName('docs', `${prefix}_alpha`);
    const b = namespacedToolName('docs', `${prefix}_beta`);
    expect(a).not.toBe(b);
    expect(a.slice(0, 55)).toBe(b.slice(0, 55));
  });

  it('keeps the same long tool distinct across sources', () => {
    const tool = 't'.repeat(80);
    expect(namespacedToolName('one', tool)).not.toBe(namespacedToolName('two', tool));
  });
});
