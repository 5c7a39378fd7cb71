// The HTTP shape of MCP requests as benchmarks send them: the 2026-07-28 face (stateless, `_meta`
// and mirrored headers) and the 2025-era face (optionally inside a session).
export interface RequestShape {
  readonly method: 'POST';
  /** The body with a fresh JSON-RPC id per request: a sessionful server may refuse an id that is
   * still in flight in the same session. */
  readonly body: (sequence: number) => string;
  readonly headers: Record<string, string>;
}

function numbered(message: Record<string, unknown>): (sequence: number) => string {
  const [before, after] = JSON.stringify({ jsonrpc: '2.0', id: 0, ...message }).split('"id":0');
  return (sequence) => `${before ?? ''}"id":${sequence}${after ?? ''}`;
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A 2026-07-28 request; `name` fills `Mcp-Name` for named methods. */
export function modernRequest(
  method: string,
  params: Record<string, unknown>,
  name?: string,
  headers: Record<string, string> = {},
): RequestShape {
  return {
    method: 'POST',
    body: numbered({ method, params: { _meta: META, ...params } }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
      ...headers,
    },
  };
}

/** A 2025-06-18 request, inside `sessionId` when the server keeps sessions. */
export function legacyRequest(
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  sessionId?: string,
): RequestShape {
  return {
    method: 'POST',
    body: numbered({ method, params }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
      ...headers,
    },
  };
}
