// Reads a `text/event-stream` response body into JSON-RPC messages (one per `message` event).
// Only what MCP uses is supported: `event:` and `data:` fields; comments and ids are ignored.
// A `message` event whose data is not JSON is a protocol failure, not something to skip.
import { UpstreamProtocolError } from './upstream-answer-errors.js';

export async function* readSseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let boundary = buffer.search(/\r?\n\r?\n/);
    while (boundary >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, '');
      const message = messageOf(block);
      if (message !== undefined) yield message;
      boundary = buffer.search(/\r?\n\r?\n/);
    }
  }
  const last = messageOf(buffer);
  if (last !== undefined) yield last;
}

/** The event type and joined data lines of one SSE block. `data` is undefined when it is empty:
 * such an event is never dispatched (the priming event of a resumable stream is `id:` + `data:`). */
export function parseSseBlock(block: string): { event: string; data: string | undefined } {
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
  const joined = data.join('\n');
  return { event, data: joined === '' ? undefined : joined };
}

function messageOf(block: string): unknown {
  const { event, data } = parseSseBlock(block);
  if (event !== 'message' || data === undefined) return undefined;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    throw new UpstreamProtocolError('an event carries data that is not JSON');
  }
}
