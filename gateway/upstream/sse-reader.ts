// Reads a `text/event-stream` response body into JSON-RPC messages (one per `message` event).
// Only what MCP uses is supported: `event:` and `data:` fields; comments and ids are ignored.
// A `message` event whose data is not JSON is a protocol failure, not something to skip.
import { UpstreamProtocolError } from './upstream-answer-errors.js';

/** Splits a `text/event-stream` body into JSON-RPC messages as its chunks arrive (a push reader:
 * the relay's undici handler feeds it from the socket, with no stream or iterator per call). */
export class SseMessageReader {
  private readonly decoder = new TextDecoder();
  private buffer = '';

  /** The messages completed by `chunk`, in order (most chunks complete none or one). */
  feed(chunk: Uint8Array): unknown[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const messages: unknown[] = [];
    let boundary = this.buffer.search(/\r?\n\r?\n/);
    while (boundary >= 0) {
      const block = this.buffer.slice(0, boundary);
      this.buffer = this.buffer.slice(boundary).replace(/^\r?\n\r?\n/, '');
      const message = messageOf(block);
      if (message !== undefined) messages.push(message);
      boundary = this.buffer.search(/\r?\n\r?\n/);
    }
    return messages;
  }

  /** The message of an unterminated last block once the body has ended, if there is one. */
  end(): unknown {
    const last = messageOf(this.buffer);
    this.buffer = '';
    return last;
  }
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
