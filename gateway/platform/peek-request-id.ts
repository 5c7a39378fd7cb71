// Reads the JSON-RPC `id` of a request that is about to be refused before its body was parsed (a
// 401 on /mcp, issue 8.11), so MCP clients can match the error to their request. Bounded by size and
// time: an unauthenticated caller cannot make the gateway buffer much or wait long, and anything
// unreadable in time simply yields `null`, the JSON-RPC id for "unknown".
import type { IncomingMessage } from 'node:http';
import { idEchoesExactly } from './exact-rpc-id.js';

export interface PeekLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

export const UNAUTHENTICATED_PEEK: PeekLimits = { maxBytes: 64 * 1024, timeoutMs: 1000 };

function idOf(text: string): string | number | null {
  try {
    const body = JSON.parse(text) as unknown;
    const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
    if (typeof id === 'string') return id;
    if (typeof id === 'number' && Number.isFinite(id) && idEchoesExactly(text, body) === true) return id;
  } catch {
    // Not JSON: the id is unknown.
  }
  return null;
}

export function peekRequestId(stream: IncomingMessage, limits: PeekLimits): Promise<string | number | null> {
  const declared = Number(stream.headers['content-length'] ?? 0);
  if (!(declared > 0) || declared > limits.maxBytes || stream.readableEnded) return Promise.resolve(null);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (id: string | number | null) => {
      clearTimeout(timer);
      stream.off('data', onData).off('end', onEnd).off('error', onStop).off('close', onStop);
      stream.pause();
      resolve(id);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) finish(null);
      else chunks.push(chunk);
    };
    const onEnd = () => finish(idOf(Buffer.concat(chunks).toString('utf8')));
    const onStop = () => finish(null);
    const timer = setTimeout(onStop, limits.timeoutMs);
    stream.on('data', onData).on('end', onEnd).on('error', onStop).on('close', onStop);
  });
}
