// The upstream response guard on synthetic streams: chunk boundaries anywhere, CRLF framing, the
// empty priming event of resumable streams, and the per-event cap of long-lived streams.
import { describe, expect, it } from 'vitest';
import { guardedFetch } from '../../../gateway/upstream/response-guard.js';
import {
  UpstreamProtocolError,
  UpstreamResponseTooLargeError,
} from '../../../gateway/upstream/upstream-answer-errors.js';

function streamed(chunks: string[], type: string): () => Promise<Response> {
  const bytes = chunks.map((c) => new TextEncoder().encode(c));
  return () =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const b of bytes) controller.enqueue(b);
            controller.close();
          },
        }),
        { status: 200, headers: { 'content-type': type } },
      ),
    );
}

const request = { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }) };

async function read(chunks: string[], type: string, maxBytes: number): Promise<string> {
  const fetchLike = guardedFetch({ maxBytes, validate: true }, streamed(chunks, type));
  return (await fetchLike('http://upstream.test/mcp', request)).text();
}

describe('response guard', () => {
  it('upstream:guard-sse-framing — events split across chunks and CRLF framing pass; the empty priming event is not a message', async () => {
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { tools: [] } });
    const text = `id: a\r\ndata: \r\n\r\nevent: message\r\ndata: ${answer}\r\n\r\n`;
    const chunks = text.match(/.{1,5}/gs) ?? [];
    expect(await read(chunks, 'text/event-stream', 1024)).toBe(text);
  });

  it('upstream:guard-sse-per-event — the cap applies per event: many small events pass, one large event fails', async () => {
    const note = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })}\n\n`;
    const many = Array.from({ length: 50 }, () => note);
    await expect(read(many, 'text/event-stream', 200)).resolves.toHaveLength(note.length * 50);
    const big = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { x: 'y'.repeat(300) } })}\n\n`;
    await expect(read([big], 'text/event-stream', 200)).rejects.toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  it('upstream:guard-not-mcp — garbage JSON, garbage SSE and the answer to another request are protocol errors', async () => {
    await expect(read(['{"jsonrpc": oops'], 'application/json', 1024)).rejects.toBeInstanceOf(
      UpstreamProtocolError,
    );
    await expect(read(['data: <html>\n\n'], 'text/event-stream', 1024)).rejects.toBeInstanceOf(
      UpstreamProtocolError,
    );
    const other = JSON.stringify({ jsonrpc: '2.0', id: 8, result: {} });
    await expect(read([other], 'application/json', 1024)).rejects.toBeInstanceOf(UpstreamProtocolError);
    const mine = JSON.stringify({ jsonrpc: '2.0', id: 7, result: {} });
    await expect(read([mine], 'application/json', 1024)).resolves.toBe(mine);
    await expect(read([mine], 'application/json', 10)).rejects.toBeInstanceOf(UpstreamResponseTooLargeError);
  });
});
