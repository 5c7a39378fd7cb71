// Which methods name a tool, prompt, resource or task, and by which body field: what an `Mcp-Name`
// header mirrors (SEP-2243; tasks/* from SEP-2663).

/** Methods whose `Mcp-Name` header must mirror a body field. A `Mcp-Name` on any other method
 * mirrors nothing and is a mismatch. */
export const NAMED_METHODS: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
