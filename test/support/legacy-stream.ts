// Raw 2025-era /mcp traffic for tests of what reaches a client mid-call (issue 24): a tools/call whose
// SSE answer is read message by message, and the POST of a JSON-RPC response with its status.

import { sseBlocks } from './sse-stream.js';

export const LEGACY_VERSION = '2025-11-25';

export function legacyHeaders(key: string, version = LEGACY_VERSION): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    authorization: `Bearer ${key}`,
  };
}

export type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: unknown };

/** One tools/call on the legacy face; its messages are read as they arrive. */
export class LegacyCall {
  private readonly controller = new AbortController();
  private readonly messages: Message[] = [];
  private waiters: (() => void)[] = [];
  readonly done: Promise<void>;
  status = 0;
  contentType = '';

  constructor(url: string, key: string, params: Record<string, unknown>, version = LEGACY_VERSION) {
    this.done = this.read(url, key, params, version);
    this.done.catch(() => undefined);
  }

  private async read(url: string, key: string, params: Record<string, unknown>, version: string) {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: legacyHeaders(key, version),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      signal: this.controller.signal,
    });
    this.status = response.status;
    this.contentType = response.headers.get('content-type') ?? '';
    try {
      const blocks = sseBlocks(response.body as unknown as AsyncIterable<Uint8Array>, { rest: true });
      for await (const block of blocks) this.take(block);
    } finally {
      this.wakeAll();
    }
  }

  private take(block: string) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    const text = data === '' && block.trim().startsWith('{') ? block : data;
    if (text === '') return;
    this.messages.push(JSON.parse(text) as Message);
    this.wakeAll();
  }

  private wakeAll() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** The first message (from `from` on) matching, waiting up to `timeoutMs`. */
  async next(match: (message: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found !== undefined) return found;
      let finished = false;
      const end = () => (finished = true);
      void this.done.then(end, end);
      if (Date.now() > deadline) throw new Error('no such message in time');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
      if (finished && this.messages.find(match) === undefined) throw new Error('the stream ended without it');
    }
  }

  /** The server→client request the gateway sent on the stream. */
  question(timeoutMs?: number): Promise<Message> {
    return this.next((m) => typeof m.method === 'string' && m.id !== undefined, timeoutMs);
  }

  /** The final answer to the call (id 1). */
  final(timeoutMs?: number): Promise<Message> {
    return this.next((m) => m.id === 1 && m.method === undefined, timeoutMs);
  }

  get all(): readonly Message[] {
    return this.messages;
  }

  abort(): void {
    this.controller.abort();
  }
}

/** POSTs a JSON-RPC response (the client's answer); the status and body as received. */
export async function postAnswer(
  url: string,
  key: string,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...legacyHeaders(key), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return { status: response.status, body: await response.text() };
}
