// The OpenAI-compatible embeddings client (issue 22) against a real HTTP server on port 0: batching
// and order, the concurrency bound, retries (429 with Retry-After, 5xx, dropped connections,
// timeouts) and none on other 4xx, lying responses refused, its own rate limit, the tenant reach
// policy, and error messages that carry no key, endpoint or text.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingsSchema, TenantPolicySchema, type SecretReader } from '../../../../gateway/config/index.js';
import {
  EmbeddingFailed,
  HttpEmbeddingProvider,
  hashingVector,
  systemClock,
  type Clock,
  type HttpEmbeddingOptions,
} from '../../../../gateway/knowledge/embeddings/index.js';
import { NetworkGuard, ReachPolicy } from '../../../../gateway/reach/index.js';
import { DIMS, EmbeddingsServer, honestBody, sendJson, type Script } from './embeddings-server.js';

const KEY = 'sk-test-5d1c0ffee-never-shown';
const secrets: SecretReader = {
  readEnv: (name) => (name === 'EMBED_KEY' ? KEY : undefined),
  readFile: () => {
    throw new Error('no files here');
  },
};

const server = new EmbeddingsServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());

/** Backoff sleeps are recorded and skipped; the request clock stays real. */
let sleeps: number[] = [];
const instantClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => {
    sleeps.push(ms);
    signal?.throwIfAborted();
    return Promise.resolve();
  },
};
beforeEach(() => {
  sleeps = [];
});

function provider(fields: Record<string, unknown> = {}, options: Partial<HttpEmbeddingOptions> = {}) {
  const config = EmbeddingsSchema.parse({ baseUrl: server.baseUrl, model: 'test-embed', ...fields });
  return new HttpEmbeddingProvider(config, { secrets, clock: instantClock, random: () => 0.5, ...options });
}

const texts = (n: number, prefix = 'text') => Array.from({ length: n }, (_, i) => `${prefix} number ${i}`);

async function failure(promise: Promise<unknown>): Promise<EmbeddingFailed> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EmbeddingFailed);
  return error as EmbeddingFailed;
}

describe('HttpEmbeddingProvider', () => {
  it('knowledge:embeddings-batching — sends batches of batchSize and returns vectors in input order', async () => {
    // Each batch is answered with its data reversed: the provider must order by index.
    server.script = (request, res) => {
      const body = honestBody(request.input) as { data: unknown[] };
      sendJson(res, 200, { ...body, data: [...body.data].reverse() });
    };
    const input = texts(10);
    const vectors = await provider({ batchSize: 4, dimensions: DIMS }).embed(input);
    expect(server.seen.map((r) => r.input.length).sort()).toEqual([2, 4, 4]);
    expect(vectors.map((v) => [...v])).toEqual(input.map((t) => [...hashingVector(t, DIMS)]));
    const body = server.seen[0]?.body;
    expect(body).toMatchObject({ model: 'test-embed', encoding_format: 'float', dimensions: DIMS });
  });

  it('knowledge:embeddings-batching — sends no request for no texts, and no dimensions unless configured', async () => {
    const p = provider();
    expect(await p.embed([])).toEqual([]);
    expect(server.seen).toHaveLength(0);
    await p.embed(['one']);
    expect(server.seen[0]?.body).not.toHaveProperty('dimensions');
    expect(p.dimensions).toBeUndefined();
  });

  it('knowledge:embeddings-batching — sends the API key as a bearer token, and none without one', async () => {
    await provider({ apiKey: { env: 'EMBED_KEY' } }).embed(['a']);
    await provider().embed(['b']);
    expect(server.seen.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`, undefined]);
    const missing = await failure(provider({ apiKey: { env: 'NOT_SET' } }).embed(['c']));
    expect(missing.reason).toBe('secret_unavailable');
    expect(server.seen).toHaveLength(2);
  });

  it('knowledge:embeddings-concurrency — keeps at most `concurrency` requests in flight, across calls', async () => {
    server.script = async (request, res) => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      sendJson(res, 200, honestBody(request.input));
    };
    const p = provider({ batchSize: 1, concurrency: 3 });
    const [a, b] = await Promise.all([p.embed(texts(6, 'a')), p.embed(texts(6, 'b'))]);
    expect(a).toHaveLength(6);
    expect(b).toHaveLength(6);
    expect(server.seen).toHaveLength(12);
    expect(server.maxInFlight).toBe(3);
  });

  it('knowledge:embeddings-retry — retries a 429 after the Retry-After it was given', async () => {
    server.script = (request, res) => {
      if (request.n === 0) sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '2' });
      else if (request.n === 1) sendJson(res, 429, { error: 'slow down' }, { 'retry-after-ms': '750' });
      else sendJson(res, 200, honestBody(request.input));
    };
    const vectors = await provider().embed(['x']);
    expect(vectors).toHaveLength(1);
    expect(server.seen).toHaveLength(3);
    expect(sleeps).toEqual([2000, 750]);
  });

  it('knowledge:embeddings-retry — retries 5xx and dropped connections with growing, jittered backoff', async () => {
    server.script = (request, res) => {
      if (request.n === 0) sendJson(res, 503, { error: 'busy' });
      else if (request.n === 1) res.socket?.destroy();
      else if (request.n === 2) sendJson(res, 500, { error: 'oops' });
      else sendJson(res, 200, honestBody(request.input));
    };
    await provider().embed(['x']);
    expect(server.seen).toHaveLength(4);
    // base 500 ms doubling, half of each wait jittered (random() = 0.5 here).
    expect(sleeps).toEqual([375, 750, 1500]);
  });

  it('knowledge:embeddings-retry — retries a timed-out request, and gives up after maxRetries', async () => {
    server.script = async (request, res) => {
      if (request.n === 0) await new Promise((resolve) => setTimeout(resolve, 400));
      sendJson(res, 200, honestBody(request.input));
    };
    await provider({ timeoutMs: 100 }).embed(['x']);
    expect(server.seen).toHaveLength(2);

    server.reset((_request, res) => sendJson(res, 502, { error: 'bad gateway' }));
    const error = await failure(provider({ maxRetries: 2 }).embed(['x']));
    expect(error.reason).toBe('http_error');
    expect(error.status).toBe(502);
    expect(error.message).toContain('after 3 attempts');
    expect(server.seen).toHaveLength(3);
  });

  it('knowledge:embeddings-retry — fails at once when the server asks to wait longer than a minute', async () => {
    server.script = (_request, res) => sendJson(res, 429, {}, { 'retry-after': '3600' });
    const error = await failure(provider().embed(['x']));
    expect(error.reason).toBe('rate_limited');
    expect(server.seen).toHaveLength(1);
  });

  it('knowledge:embeddings-no-retry-4xx — a 400 or 401 fails at once, and the whole call with it', async () => {
    for (const status of [400, 401, 404, 413]) {
      server.reset((_request, res) => sendJson(res, status, { error: 'no' }));
      const error = await failure(provider().embed(['x']));
      expect(error.reason).toBe('http_error');
      expect(error.status).toBe(status);
      expect(server.seen).toHaveLength(1);
    }
    // One refused batch fails the call: no partial result.
    server.reset((request, res) =>
      request.input.includes('bad') ? sendJson(res, 400, {}) : sendJson(res, 200, honestBody(request.input)),
    );
    const error = await failure(provider({ batchSize: 1 }).embed(['good', 'bad', 'fine']));
    expect(error.status).toBe(400);
    expect(sleeps).toEqual([]);
  });

  it('knowledge:embeddings-response-checked — refuses a response that lies', async () => {
    const lies: Record<string, (input: string[]) => unknown> = {
      'too few vectors': (input) => honestBody(input.slice(1)),
      'too many vectors': (input) => honestBody([...input, 'extra']),
      'a repeated index': (input) => ({
        data: input.map((t) => ({ index: 0, embedding: [...hashingVector(t, DIMS)] })),
      }),
      'an index out of range': (input) => ({
        data: input.map((t, i) => ({ index: i + 1, embedding: [...hashingVector(t, DIMS)] })),
      }),
      'ragged lengths': (input) => ({
        data: input.map((t, i) => ({ index: i, embedding: [...hashingVector(t, DIMS + i)] })),
      }),
      // JSON has no NaN: a server's NaN arrives as null (readEmbeddings refuses NaN itself too).
      'NaN as null': (input) => ({ data: input.map((_t, i) => ({ index: i, embedding: [0.1, null] })) }),
      'a string number': (input) => ({ data: input.map((_t, i) => ({ index: i, embedding: [0.1, '0.2'] })) }),
      'beyond float32': (input) => ({ data: input.map((_t, i) => ({ index: i, embedding: [1e300, 0] })) }),
      'an empty vector': (input) => ({ data: input.map((_t, i) => ({ index: i, embedding: [] })) }),
      'no data': () => ({ object: 'list' }),
    };
    for (const [lie, body] of Object.entries(lies)) {
      server.reset((request, res) => sendJson(res, 200, body(request.input)));
      const error = await failure(provider().embed(['a', 'b', 'c']));
      expect(error.reason, lie).toBe('malformed_response');
      expect(server.seen, lie).toHaveLength(1);
    }
  });

  it('knowledge:embeddings-response-checked — refuses vectors of a length other than the configured dimensions', async () => {
    const error = await failure(provider({ dimensions: DIMS + 1 }).embed(['a']));
    expect(error.reason).toBe('malformed_response');
    expect(error.message).toContain(`length ${DIMS}, expected ${DIMS + 1}`);
    // Without dimensions, batches of different lengths are refused as a whole.
    server.reset((request, res) =>
      sendJson(res, 200, honestBody(request.input, request.n === 0 ? DIMS : DIMS * 2)),
    );
    const ragged = await failure(provider({ batchSize: 1, concurrency: 1 }).embed(['a', 'b']));
    expect(ragged.reason).toBe('malformed_response');
  });

  it('knowledge:embeddings-rate-limit — spreads requests at requestsPerMinute, retries included', async () => {
    // 600/min: a burst of 10, then one every 100 ms. Lower bounds only: timers never fire early.
    // The first request is answered 503 and retried at once: the retry takes a token too.
    server.script = (request, res) =>
      request.n === 0
        ? sendJson(res, 503, {}, { 'retry-after-ms': '0' })
        : sendJson(res, 200, honestBody(request.input));
    const p = provider({ batchSize: 1, concurrency: 16, requestsPerMinute: 600 }, { clock: systemClock });
    const started = performance.now();
    await p.embed(texts(14));
    const arrivals = server.seen.map((r) => r.at - started).sort((a, b) => a - b);
    expect(arrivals).toHaveLength(15);
    for (let k = 10; k < 15; k += 1) expect(arrivals[k]).toBeGreaterThanOrEqual((k - 9) * 100 - 5);
  });

  it('knowledge:embeddings-retry — an aborted call stops at once and says so', async () => {
    server.script = async (request, res) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (!res.destroyed) sendJson(res, 200, honestBody(request.input));
    };
    const controller = new AbortController();
    const call = provider().embed(['a'], controller.signal);
    setTimeout(() => controller.abort(), 50);
    const error = await failure(call);
    expect(error.reason).toBe('aborted');
    expect(server.seen).toHaveLength(1);
  });

  it('knowledge:embeddings-hygiene — no key, endpoint or text in any error message', async () => {
    const secretText = 'the merger closes on 14 March, tell nobody';
    const echo =
      (status: number): Script =>
      (request, res) =>
        sendJson(res, status, { error: { message: `bad input: ${request.input.join(' ')} key ${KEY}` } });
    const scripts: Script[] = [
      echo(400),
      echo(401),
      echo(500),
      echo(429),
      (request, res) => sendJson(res, 200, { data: [{ index: 0, embedding: request.input }] }),
      (_request, res) => void res.writeHead(200).end(`not json ${secretText}`),
      (_request, res) => void res.socket?.destroy(),
    ];
    for (const script of scripts) {
      server.reset(script);
      const error = await failure(
        provider({ apiKey: { env: 'EMBED_KEY' }, maxRetries: 1 }).embed([secretText]),
      );
      for (const leaked of [KEY, secretText, 'merger', '127.0.0.1', String(server.port), '/v1'])
        expect(error.message).not.toContain(leaked);
      expect(JSON.stringify(error)).not.toContain(KEY);
    }
  });

  it('knowledge:embeddings-reach — requests go through the tenant reach guard it is given', async () => {
    const scope = { namespace: 'team-a', workspace: 'acme' };
    const policyOf = (input: unknown) => new ReachPolicy(TenantPolicySchema.parse(input));
    const strict = new NetworkGuard(policyOf({}), scope);
    const open = new NetworkGuard(policyOf({ network: { allow: { cidrs: ['127.0.0.1/32'] } } }), scope);
    try {
      const refused = await failure(provider({}, { fetch: strict.fetch() }).embed(['a']));
      expect(refused.reason).toBe('not_allowed');
      expect(refused.message).not.toContain('127.0.0.1');
      expect(server.seen).toHaveLength(0);
      expect(sleeps).toEqual([]);
      expect(await provider({}, { fetch: open.fetch() }).embed(['a'])).toHaveLength(1);
      expect(server.seen).toHaveLength(1);
    } finally {
      await Promise.all([strict.close(), open.close()]);
    }
  });
});
