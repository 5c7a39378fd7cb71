// Reads the JSON-RPC `id` of a request that is about to be refused before its body was parsed (a
// 401 on /mcp, issue 8.11), so MCP clients can match the error to their request, and its `method`
// string for the audit record (issue 29: trusted for nothing else; audit-record.ts keeps only known
// names). Bounded by size and time: an unauthenticated caller cannot make the gateway buffer much or
// wait long, and anything unreadable in time simply yields `null`, the JSON-RPC id for "unknown".
import type { IncomingMessage } from 'node:http';
import { idEchoesExactly } from '../platform/exact-rpc-id.js';

export interface PeekLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

export const UNAUTHENTICATED_PEEK: PeekLimits = { maxBytes: 64 * 1024, timeoutMs: 1000 };

/** What a peek found: the id to answer with, and the body's `method` when it is a string. */
export interface PeekedRequest {
  readonly id: string | number | null;
  readonly method?: string | undefined;
}

const NOTHING: PeekedRequest = { id: null };

function peekedOf(text: string): PeekedRequest {
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body !== 'object' || body === null) return NOTHING;
    const { id, method } = body as { id?: unknown; method?: unknown };
    const known = typeof method === 'string' ? method : undefined;
    if (typeof id === 'string') return { id, method: known };
    if (typeof id === 'number' && Number.isFinite(id) && idEchoesExactly(text, body) === true)
      return { id, method: known };
    return { id: null, method: known };
  } catch {
    // Not JSON: the id is unknown.
  }
  return NOTHING;
}

export function peekRequest(stream: IncomingMessage, limits: PeekLimits): Promise<PeekedRequest> {
  const declared = Number(stream.headers['content-length'] ?? 0);
  if (!(declared > 0) || declared > limits.maxBytes || stream.readableEnded) return Promise.resolve(NOTHING);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (peeked: PeekedRequest) => {
      clearTimeout(timer);
      stream.off('data', onData).off('end', onEnd).off('error', onStop).off('close', onStop);
      stream.pause();
      resolve(peeked);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) finish(NOTHING);
      else chunks.push(chunk);
    };
    const onEnd = () => finish(peekedOf(Buffer.concat(chunks).toString('utf8')));
    const onStop = () => finish(NOTHING);
    const timer = setTimeout(onStop, limits.timeoutMs);
    stream.on('data', onData).on('end', onEnd).on('error', onStop).on('close', onStop);
  });
}
