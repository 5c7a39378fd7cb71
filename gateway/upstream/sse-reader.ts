// Reads a `text/event-stream` response body into JSON-RPC messages (one per `message` event).
// Only what MCP uses is supported: `event:` and `data:` fields; comments and ids are ignored.
export async function* readSseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let boundary = buffer.search(/\r?\n\r?\n/);
    while (boundary >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, '');
      const message = parseBlock(block);
      if (message !== undefined) yield message;
      boundary = buffer.search(/\r?\n\r?\n/);
    }
  }
  const last = parseBlock(buffer);
  if (last !== undefined) yield last;
}

function parseBlock(block: string): unknown {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (event !== 'message' || data.length === 0) return undefined;
  try {
    return JSON.parse(data.join('\n')) as unknown;
  } catch {
    return undefined;
  }
}
