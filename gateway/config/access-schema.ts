// What a caller may do and see (D6, issue 23): read or write access, and which tools tools/list
// discloses. Shared by API keys, workspaces, MCP sources' per-tool permissions and OAuth rules.
import { z } from 'zod';

export const AccessSchema = z
  .enum(['read', 'write'])
  .describe('read: read-only tools and the knowledge endpoints; write: every tool (write includes read).');
export type Access = z.infer<typeof AccessSchema>;

/** What `/mcp` tools/list offers (issue 23): every tool the key may call, or only the gateway's own
 * tools, among them `find_tools` and `call_tool`, which find and call the others on demand. */
export const TOOL_DISCLOSURES = ['all', 'search'] as const;
export const ToolDisclosureSchema = z
  .enum(TOOL_DISCLOSURES)
  .describe(
    'all: tools/list returns every tool the key may call; search: only the gateway tools (find_tools, call_tool and the knowledge tools).',
  );
export type ToolDisclosure = z.infer<typeof ToolDisclosureSchema>;
