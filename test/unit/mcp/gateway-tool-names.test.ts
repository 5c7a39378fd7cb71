// The reserved names of discovery/ and the gateway's own tools of mcp/ are one list: the names used to
// be read off the tool definitions, so a tool added to the face without its name reserved would let
// an unprefixed source's tool of the same name take it.
import { describe, expect, it } from 'vitest';
import { GATEWAY_TOOL_NAMES } from '../../../gateway/discovery/index.js';
import { DISCLOSURE_TOOLS } from '../../../gateway/mcp/disclosure-tools.js';
import { KNOWLEDGE_TOOLS } from '../../../gateway/mcp/knowledge-tools.js';

describe('gateway tool names', () => {
  it('reserves exactly the names of the knowledge and disclosure tools', () => {
    const defined = [...KNOWLEDGE_TOOLS, ...DISCLOSURE_TOOLS].map((tool) => tool.name).sort();
    expect([...GATEWAY_TOOL_NAMES].sort()).toEqual(defined);
  });
});
