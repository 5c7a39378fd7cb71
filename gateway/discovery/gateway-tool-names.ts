// The names of the gateway's own tools: `search` and `get_document` (issue 4, the knowledge tools),
// `find_tools` and `call_tool` (issue 23, progressive disclosure). mcp/ defines the tools; the names
// live here because every key's name space reserves them (issue 24), whether or not its workspace
// offers the tools, so a name does not change when knowledge or disclosure is turned on.
export const SEARCH_TOOL = 'search';
export const GET_DOCUMENT_TOOL = 'get_document';
export const FIND_TOOLS = 'find_tools';
export const CALL_TOOL = 'call_tool';

export const GATEWAY_TOOL_NAMES: ReadonlySet<string> = new Set([
  GET_DOCUMENT_TOOL,
  SEARCH_TOOL,
  FIND_TOOLS,
  CALL_TOOL,
]);
