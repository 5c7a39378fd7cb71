// The liberal tools/list reader (issue 37.11): each deviation published servers make is repaired
// when its meaning is unambiguous, an unusable tool is skipped with the gateway's reason, and only a
// page that is not a tool list is refused.
import { describe, expect, it } from 'vitest';
import {
  normaliseInputSchema,
  readTool,
  readToolPage,
  ToolListRefusedError,
} from '../../../gateway/upstream/tool-list-reader.js';

describe('input schema normalisation', () => {
  it.each([
    [
      'no type, properties and required',
      { properties: { a: {} }, required: ['a'] },
      { type: 'object', properties: { a: {} }, required: ['a'] },
    ],
    ['empty', {}, { type: 'object' }],
    ['absent', undefined, { type: 'object' }],
    ['null', null, { type: 'object' }],
    ['type as an array', { type: ['object', 'null'] }, { type: 'object' }],
    [
      '$schema kept',
      { $schema: 'https://json-schema.org/draft/2020-12/schema' },
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
    ],
    ['$schema not a string', { type: 'object', $schema: 7 }, { type: 'object' }],
    ["PHP's empty properties", { type: 'object', properties: [] }, { type: 'object' }],
    ['required true', { type: 'object', required: true }, { type: 'object' }],
    ['required with a number', { type: 'object', required: ['a', 1] }, { type: 'object', required: ['a'] }],
    [
      'additionalProperties as text',
      { type: 'object', additionalProperties: 'false' },
      { type: 'object', additionalProperties: false },
    ],
    ['additionalProperties null', { type: 'object', additionalProperties: null }, { type: 'object' }],
    [
      'anyOf without type',
      { anyOf: [{ properties: { a: {} } }] },
      { type: 'object', anyOf: [{ properties: { a: {} } }] },
    ],
  ])('upstream:lenient-schema-rules — %s', (_label, input, expected) => {
    expect(normaliseInputSchema(input)).toEqual({ schema: expected });
  });

  it.each([
    ['a string schema', 'none', 'the input schema is not a JSON object'],
    ['an array schema', [], 'the input schema is not a JSON object'],
    ['type string', { type: 'string' }, "the input schema's type is string, not object"],
    ['an unknown type', { type: 'thing\n' }, "the input schema's type is not object"],
    ['an array type without object', { type: ['string'] }, "the input schema's type does not include object"],
    [
      'items without type',
      { items: { type: 'string' } },
      'the input schema has no type and describes a non-object value',
    ],
    [
      'properties a string',
      { type: 'object', properties: 'a' },
      "the input schema's properties is not an object",
    ],
  ])('refuses %s', (_label, input, problem) => {
    expect(normaliseInputSchema(input)).toEqual({ problem });
  });
});

describe('tools and pages', () => {
  it('drops malformed optional fields; a hint that is not a boolean is dropped, never coerced', () => {
    const read = readTool({
      name: 'x',
      title: 5,
      description: null,
      inputSchema: { properties: {} },
      outputSchema: 'none',
      annotations: { readOnlyHint: 'true', destructiveHint: false, title: 1 },
      icons: [{ src: 'https://example.com/i.png' }, { nope: true }],
      _meta: [],
    });
    expect(read).toEqual({
      tool: {
        name: 'x',
        inputSchema: { type: 'object', properties: {} },
        annotations: { destructiveHint: false },
        icons: [{ src: 'https://example.com/i.png' }],
      },
    });
  });

  it('skips an entry that is not an object or has no string name, with a reason', () => {
    expect(readTool('tool')).toEqual({ skipped: { name: '', reason: 'the entry is not a JSON object' } });
    expect(readTool({ name: 1, inputSchema: {} })).toEqual({
      skipped: { name: 1, reason: 'the name is not a string' },
    });
  });

  it('reads a page: usable tools, skipped tools, cursor (empty or null ends it), cache hint', () => {
    const page = readToolPage({
      tools: [{ name: 'a' }, { name: 'b', inputSchema: { type: 'string' } }],
      nextCursor: 'c2',
      ttlMs: 5000,
      resultType: 'complete',
    });
    expect(page.tools.map((tool) => tool.name)).toEqual(['a']);
    expect(page.skipped).toEqual([{ name: 'b', reason: "the input schema's type is string, not object" }]);
    expect(page.nextCursor).toBe('c2');
    expect(page.ttlMs).toBe(5000);
    expect(readToolPage({ tools: [], nextCursor: '' }).nextCursor).toBeUndefined();
    expect(readToolPage({ tools: [], nextCursor: null }).nextCursor).toBeUndefined();
  });

  it('upstream:tool-list-refused — a page that is not a tool list is refused in the gateway’s own words', () => {
    expect(() => readToolPage('list')).toThrow(ToolListRefusedError);
    expect(() => readToolPage({ tools: 'none' })).toThrow('the tools/list result has no tools array');
    expect(() => readToolPage({ tools: [], nextCursor: 3 })).toThrow('nextCursor is not a string');
  });
});
