// /agent/query with an OpenAI-compatible chat answerer configured: a local HTTP server speaking the
// chat completions protocol answers, fails with 500, hangs past the timeout, sends malformed JSON,
// answers without citations, cites a passage it was not given, or declines. Every failure falls back
// to the extractive answer with its reason; provenance is present either way; the API key and the
// retrieved text never reach the logs.
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRecord, newKey } from '../support/gateway-document.js';
import { startHarness, type Harness } from '../support/gateway-harness.js';

type Mode = 'good' | 'http500' | 'slow' | 'garbage' | 'uncited' | 'out-of-range' | 'decline';

const key = newKey();
const API_KEY = 'sk-test-chat-7d1e0b';
const PASSAGE = 'The albatross relay retries each delivery four times before it gives up.';
let h: Harness;
let dir: string;
let chat: Server;
let mode: Mode = 'good';
const received: { auth: string | undefined; body: Record<string, unknown> }[] = [];

function reply(body: Record<string, unknown>): string {
  const messages = body['messages'] as { role: string; content: string }[];
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  const passage = /\[(\d+)\] [^\n]*\n[^\n]*albatross/.exec(user)?.[1] ?? '1';
  switch (mode) {
    case 'uncited':
      return 'The relay retries four times.';
    case 'out-of-range':
      return 'The relay retries four times [99].';
    case 'decline':
      return 'NO_ANSWER';
    default:
      return `The relay retries a delivery four times before giving up [${passage}].`;
  }
}

function startChat(): Promise<string> {
  chat = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      received.push({ auth: req.headers.authorization, body });
      if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      if (mode === 'http500') return void res.writeHead(500).end('{"error":"boom"}');
      if (mode === 'slow') return void setTimeout(() => res.writeHead(200).end('{}'), 2_000).unref();
      res.setHeader('content-type', 'application/json');
      if (mode === 'garbage') return void res.end('{"choices": [ this is not json');
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          model: body['model'],
          choices: [
            { index: 0, message: { role: 'assistant', content: reply(body) }, finish_reason: 'stop' },
          ],
        }),
      );
    });
  });
  return new Promise((resolve) =>
    chat.listen(0, '127.0.0.1', () => {
      const address = chat.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/v1`);
    }),
  );
}

async function query(question: string) {
  const response = await fetch(`${h.url}/agent/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: question, options: { response_format: 'json' } }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    answerer: string;
    model: string | null;
    fallback_reason: string | null;
    answer: string;
    citations: { n: number; chunk_id: string; text: string }[];
    sources: { chunk_id: string; title: string }[];
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agw-chat-'));
  await writeFile(join(dir, 'relay.md'), `# Albatross relay\n\n${PASSAGE} It logs every attempt.\n`);
  await writeFile(join(dir, 'other.md'), '# Heron queue\n\nThe heron queue keeps messages for a week.\n');
  const baseUrl = await startChat();
  h = await startHarness(
    {
      workspaces: [
        {
          name: 'demo',
          dataSources: [{ name: 'docs', type: 'files', path: dir }],
          keys: [keyRecord(key)],
        },
      ],
      knowledge: {
        answerer: {
          type: 'openai-compatible',
          baseUrl,
          model: 'test-model',
          apiKey: { env: 'CHAT_API_KEY' },
          timeoutMs: 300,
        },
      },
    },
    { CHAT_API_KEY: API_KEY },
  );
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const body = (await (
      await fetch(`${h.url}/agent/sources?response_format=json`, {
        headers: { authorization: `Bearer ${key.key}` },
      })
    ).json()) as { sources: { id: string; status: string }[] };
    if (body.sources.find((s) => s.id === 'docs')?.status === 'ready') break;
    await new Promise((r) => setTimeout(r, 50));
  }
});

afterAll(async () => {
  await h?.stop();
  await new Promise<void>((resolve) => chat.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe('chat answerer', () => {
  it('knowledge:chat-answerer — a cited model answer is returned with its citations and sources', async () => {
    mode = 'good';
    received.length = 0;
    const result = await query('how many times does the albatross relay retry');
    expect(result).toMatchObject({
      answerer: 'openai-compatible',
      model: 'test-model',
      fallback_reason: null,
    });
    expect(result.answer).toMatch(/four times before giving up \[\d+\]\.$/);
    const n = Number(/\[(\d+)\]/.exec(result.answer)?.[1]);
    expect(result.citations).toHaveLength(1);
    expect(result.citations[0]?.n).toBe(n);
    // The cited number is the rank of the source record it came from.
    expect(result.citations[0]?.chunk_id).toBe(result.sources[n - 1]?.chunk_id);
    expect(result.sources[n - 1]?.title).toBe('Albatross relay');
    // What the endpoint received: the key from the secret reference, the model, the passages.
    expect(received).toHaveLength(1);
    expect(received[0]?.auth).toBe(`Bearer ${API_KEY}`);
    expect(received[0]?.body).toMatchObject({ model: 'test-model', temperature: 0, max_tokens: 500 });
    const user = (received[0]?.body['messages'] as { role: string; content: string }[])[1]?.content;
    expect(user).toContain('Question: how many times does the albatross relay retry');
    expect(user).toContain(PASSAGE);
  });

  it.each([
    ['http500', 'http_error'],
    ['slow', 'timeout'],
    ['garbage', 'malformed_response'],
    ['uncited', 'uncited_answer'],
    ['out-of-range', 'uncited_answer'],
    ['decline', 'no_answer'],
  ] as const)(
    'knowledge:chat-answerer-fallback — %s falls back to the extractive answer (%s)',
    async (failure, reason) => {
      mode = failure;
      const result = await query('how many times does the albatross relay retry');
      expect(result).toMatchObject({ answerer: 'extractive', model: null, fallback_reason: reason });
      expect(result.answer).toContain(`${PASSAGE} [1]`);
      expect(result.citations[0]?.text).toBe(PASSAGE);
      expect(result.sources.length).toBeGreaterThan(0);
    },
  );

  it('knowledge:chat-answerer-hygiene — no call without records; the key and content stay out of the logs', async () => {
    mode = 'good';
    received.length = 0;
    const nothing = await query('zzzqqq xylophonist');
    expect(nothing).toMatchObject({
      answerer: 'extractive',
      fallback_reason: null,
      citations: [],
      sources: [],
    });
    expect(received).toHaveLength(0);
    const logs = h.logs.join('\n');
    expect(logs).toContain('chat answerer failed');
    for (const secret of [API_KEY, 'albatross', 'four times'])
      expect(logs.includes(secret), secret).toBe(false);
  });
});
