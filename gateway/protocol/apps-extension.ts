// MCP Apps (`io.modelcontextprotocol/ui`, ext-apps specification 2026-01-26): the extension's
// capability key, the one MIME type it defines, and the tool `_meta` keys that name a UI resource.
// A client declares the extension as `capabilities.extensions[UI_EXTENSION] = { mimeTypes: [...] }`
// (in `initialize` in 2025, in each request's clientCapabilities in 2026); servers declare nothing.

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP App's HTML resource (`RESOURCE_MIME_TYPE` of ext-apps). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The scheme every UI resource URI starts with ("URI MUST start with `ui://`"). */
export const UI_SCHEME = 'ui://';
/** Tool `_meta` keys whose value may be a UI resource URI: `ui.resourceUri` (nested), the deprecated
 * flat `ui/resourceUri`, and the OpenAI Apps SDK's `openai/outputTemplate`. */
export const UI_FLAT_LINK_KEYS = ['ui/resourceUri', 'openai/outputTemplate'] as const;
