// The digest and judgement of pinned tool definitions (issue 41).
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/client';
import { McpSourceSchema } from '../../../gateway/config/mcp-source-schema.js';
import { presentTool } from '../../../gateway/discovery/tool-overrides.js';
import {
  ApprovedDefinitions,
  canonicalJson,
  changedFields,
  definitionDigest,
  judgeDefinitions,
} from '../../../gateway/discovery/tool-pins.js';

const echo: Tool = {
  name: 'echo',
  description: 'Echoes.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnlyHint: true },
};

function source(extra: Record<string, unknown>) {
  return McpSourceSchema.parse({
    name: 's',
    transport: 'streamable-http',
    url: 'http://127.0.0.1:1/mcp',
    ...extra,
  });
}

describe('definition digest', () => {
  it('pins:canonical — key order and undefined members do not change the digest; any pinned field does', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }], e: undefined })).toBe('{"a":[{"d":2}],"b":1}');
    const reordered: Tool = {
      annotations: { readOnlyHint: true },
      inputSchema: { required: ['text'], properties: { text: { type: 'string' } }, type: 'object' },
      description: 'Echoes.',
      name: 'echo',
    };
    expect(definitionDigest(reordered)).toBe(definitionDigest(echo));
    expect(definitionDigest(echo)).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const changed of [
      { ...echo, description: 'Echoes. ' },
      { ...echo, title: 'Echo' },
      { ...echo, annotations: { readOnlyHint: false } },
      { ...echo, inputSchema: { type: 'object' as const } },
      { ...echo, outputSchema: { type: 'object' as const } },
      { ...echo, name: 'echo2' },
    ])
      expect(definitionDigest(changed)).not.toBe(definitionDigest(echo));
    // Fields nobody pins (e.g. _meta) do not.
    expect(definitionDigest({ ...echo, _meta: { x: 1 } })).toBe(definitionDigest(echo));
  });

  it('pins:changed-fields — names exactly the fields that differ', () => {
    expect(changedFields(echo, { ...echo, description: 'x', annotations: {} })).toEqual([
      'description',
      'annotations',
    ]);
    expect(changedFields(echo, echo)).toEqual([]);
  });
});

describe('judging a listing', () => {
  const memory = new ApprovedDefinitions();

  it('pins:modes — pin holds, warn serves, off does not look; approved tools are served', () => {
    const approved = { echo: definitionDigest(echo) };
    const other: Tool = { name: 'other', inputSchema: { type: 'object' } };
    const pin = judgeDefinitions(source({ pinning: { mode: 'pin', approved } }), [echo, other], memory, 'k');
    expect(pin.served.map((t) => t.name)).toEqual(['echo']);
    expect(pin.verdict.unapproved).toMatchObject([
      { tool: 'other', change: 'new', digest: definitionDigest(other) },
    ]);
    const warn = judgeDefinitions(
      source({ pinning: { mode: 'warn', approved } }),
      [echo, other],
      memory,
      'k',
    );
    expect(warn.served.map((t) => t.name)).toEqual(['echo', 'other']);
    expect(warn.verdict.unapproved.map((t) => t.tool)).toEqual(['other']);
    const off = judgeDefinitions(
      source({ pinning: { mode: 'off', approved: {} } }),
      [echo, other],
      memory,
      'k',
    );
    expect(off.served).toHaveLength(2);
    expect(off.verdict.unapproved).toEqual([]);
  });

  it('pins:what-changed — a changed tool names its changed fields when the approved one was seen here, else none', () => {
    const approved = { echo: definitionDigest(echo) };
    const changed = { ...echo, description: 'Now also exfiltrates.' };
    const seen = judgeDefinitions(source({ pinning: { mode: 'pin', approved } }), [changed], memory, 'k');
    expect(seen.verdict.unapproved).toMatchObject([
      { tool: 'echo', change: 'changed', fields: ['description'], approvedDigest: approved.echo },
    ]);
    const unseen = judgeDefinitions(
      source({ pinning: { mode: 'pin', approved } }),
      [changed],
      new ApprovedDefinitions(),
      'k',
    );
    expect(unseen.verdict.unapproved[0]?.fields).toBeUndefined();
    expect(unseen.verdict.unapproved[0]?.description).toBe('Now also exfiltrates.');
  });

  it('pins:prototype-names — a tool named like an Object.prototype member is not approved by it', () => {
    const proto: Tool = { name: 'constructor', inputSchema: { type: 'object' } };
    const judged = judgeDefinitions(source({ pinning: { mode: 'pin' } }), [proto], memory, 'k');
    expect(judged.served).toEqual([]);
    expect(presentTool(source({}), proto)).toBe(proto);
  });
});

describe('overrides', () => {
  it('override:merge — replaces title and description, merges annotations, leaves other tools alone', () => {
    const s = source({
      overrides: { echo: { title: 'T', annotations: { readOnlyHint: false, openWorldHint: true } } },
    });
    expect(presentTool(s, echo)).toEqual({
      ...echo,
      title: 'T',
      annotations: { readOnlyHint: false, openWorldHint: true },
    });
    const other: Tool = { name: 'other', inputSchema: { type: 'object' } };
    expect(presentTool(s, other)).toBe(other);
  });

  it('pins:schema — digests must be sha256 hex; an unknown mode is refused', () => {
    expect(() => source({ pinning: { mode: 'pin', approved: { echo: 'md5:abc' } } })).toThrow(/sha256/);
    expect(() => source({ pinning: { mode: 'hold' } })).toThrow();
  });
});
