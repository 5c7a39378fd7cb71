// A raw SSE client for notification streams (issue 24): POSTs (or GETs) and reads the answer as it
// arrives, one parsed `data:` message at a time, counting `:` keep-alive comments. A JSON answer (an
// error before the stream opened) is read with `json()`.
export interface SseStream {
  readonly status: number;
  readonly contentType: string;
  /** Every message parsed so far. */
  readonly events: unknown[];
  /** `:` comments seen so far. */
  readonly comments: number;
  /** The next message not yet taken by `next` (fails after `timeoutMs`, or if the stream ends). */
  next(timeoutMs?: number): Promise<unknown>;
  json(): Promise<unknown>;
  /** Resolves when the server ends the response. */
  readonly ended: Promise<void>;
  close(): void;
}

/**
 * The blocks of an SSE body (the text between blank lines) as they arrive: the one stream reader
 * the SSE clients of the tests share. With `rest`, a last block the server did not end is yielded too.
 */
export async function* sseBlocks(
  body: AsyncIterable<Uint8Array>,
  { rest = false }: { rest?: boolean } = {},
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      yield block;
    }
  }
  if (rest && buffer.trim() !== '') yield buffer;
}

export async function openSse(
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
    signal: controller.signal,
  });
  const contentType = response.headers.get('content-type') ?? '';
  const events: unknown[] = [];
  let taken = 0;
  let comments = 0;
  let done = false;
  let wake: (() => void) | undefined;
  const streaming = contentType.startsWith('text/event-stream');
  const ended = (async () => {
    if (!streaming || response.body === null) return;
    try {
      for await (const block of sseBlocks(response.body)) {
        if (block.startsWith(':')) comments += 1;
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data !== '') events.push(JSON.parse(data));
        wake?.();
      }
    } catch {
      // Aborted by close().
    } finally {
      done = true;
      wake?.();
    }
  })();
  return {
    status: response.status,
    contentType,
    events,
    get comments() {
      return comments;
    },
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (taken >= events.length) {
        if (done) throw new Error('the stream ended');
        if (Date.now() > deadline) throw new Error('no message arrived in time');
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      taken += 1;
      return events[taken - 1];
    },
    json: (): Promise<unknown> => response.json(),
    ended,
    close: () => controller.abort(),
  };
}

/** Polls until `probe` holds, or fails after `timeoutMs`. */
/** A modern (2026-07-28) subscriptions/listen on a gateway's /mcp with `key` for `notifications`,
 * as JSON-RPC request `id`: the notification stream it opens. */
export function openListen(
  gatewayUrl: string,
  key: string,
  id: number | string,
  notifications: Record<string, unknown>,
  clientCapabilities: Record<string, unknown> = {},
): Promise<SseStream> {
  return openSse(
    `${gatewayUrl}/mcp`,
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
      authorization: `Bearer ${key}`,
    },
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        notifications,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
        },
      },
    }),
  );
}

export async function waitFor(probe: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
