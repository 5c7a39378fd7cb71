// The local embeddings server (test/infra/embeddings, issue 22) serves the real all-MiniLM-L6-v2
// over the OpenAI embeddings API: unit vectors of 384 numbers, deterministic, batch order kept,
// meaning reflected in cosine similarity (including the similarities published in the
// sentence-transformers README), and OpenAI-shaped 400/401 errors. Throughput is logged, not asserted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddings, type RunningEmbeddings } from '../infra/embeddings-server.js';

interface EmbeddingsResponse {
  object: string;
  data: { object: string; index: number; embedding: number[] }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}
interface ErrorResponse {
  error: { message: string; type: string; code: string | null };
}

const API_KEY = 'test-embeddings-key';
let open: RunningEmbeddings;
let guarded: RunningEmbeddings;

beforeAll(async () => {
  [open, guarded] = await Promise.all([startEmbeddings(), startEmbeddings({ apiKey: API_KEY })]);
}, 120_000);
afterAll(async () => {
  await Promise.all([open?.stop(), guarded?.stop()]);
});

async function post(server: RunningEmbeddings, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function embed(input: string | string[]): Promise<number[][]> {
  const { status, json } = await post(open, { model: open.model, input });
  expect(status).toBe(200);
  const body = json as EmbeddingsResponse;
  expect(body.data.map((d) => d.index)).toEqual(body.data.map((_, i) => i));
  return body.data.map((d) => d.embedding);
}

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));
const cosine = (a: number[], b: number[]) => dot(a, b) / (norm(a) * norm(b));

describe('embeddings test model (all-MiniLM-L6-v2 over the OpenAI API)', () => {
  it('embeddings:test-model-vectors — 384 numbers, L2-normalised, deterministic, OpenAI response shape', async () => {
    const text = 'The gateway answers every agent on one endpoint per workspace.';
    const { status, json } = await post(open, { model: open.model, input: text, encoding_format: 'float' });
    expect(status).toBe(200);
    const body = json as EmbeddingsResponse;
    expect(body.object).toBe('list');
    expect(body.model).toBe(open.model);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]?.object).toBe('embedding');
    expect(body.usage.prompt_tokens).toBeGreaterThan(10);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens);
    const [v] = body.data.map((d) => d.embedding) as [number[]];
    expect(v).toHaveLength(open.dimensions);
    expect(open.dimensions).toBe(384);
    expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-3);
    const [again] = await embed(text);
    expect(again).toEqual(v);
    // `dimensions` equal to the model's own is accepted (OpenAI clients may always send it).
    const explicit = await post(open, { model: open.model, input: text, dimensions: 384 });
    expect((explicit.json as EmbeddingsResponse).data[0]?.embedding).toEqual(v);
  });

  it('embeddings:test-model-batch-order — a batch equals the inputs embedded one at a time, in order', async () => {
    const texts = [
      'Short.',
      'A considerably longer sentence about how the knowledge layer cuts documents into chunks of text.',
      'Redis holds shared sessions.',
      'PostgreSQL stores the chunks for the cluster deployment, with row-level security per workspace.',
      'Short.',
    ];
    const batch = await embed(texts);
    expect(batch).toHaveLength(texts.length);
    // Same numbers up to float32 rounding: padding to the batch's longest input and a row's place
    // in the matrix change how BLAS blocks the sums.
    const maxDiff = (a: number[], b: number[]) =>
      Math.max(...a.map((x, j) => Math.abs(x - (b[j] as number))));
    expect(maxDiff(batch[4] as number[], batch[0] as number[])).toBeLessThan(1e-5);
    for (const [i, text] of texts.entries()) {
      const [single] = (await embed(text)) as [number[]];
      expect(maxDiff(single, batch[i] as number[]), text).toBeLessThan(1e-5);
    }
  });

  it('embeddings:test-model-reference — cosines match the published sentence-transformers example', async () => {
    // From the sentence-transformers README (all-MiniLM-L6-v2): [[1, 0.6660, 0.1046], [., 1, 0.1411]].
    const [weather, sunny, stadium] = (await embed([
      'The weather is lovely today.',
      "It's so sunny outside!",
      'He drove to the stadium.',
    ])) as [number[], number[], number[]];
    expect(cosine(weather, sunny)).toBeCloseTo(0.666, 3);
    expect(cosine(weather, stadium)).toBeCloseTo(0.1046, 3);
    expect(cosine(sunny, stadium)).toBeCloseTo(0.1411, 3);
  });

  it('embeddings:test-model-semantics — similar sentences are closer than unrelated ones', async () => {
    const triples: [anchor: string, similar: string, unrelated: string][] = [
      [
        'the circuit breaker opens after repeated upstream failures',
        'when an upstream keeps failing the breaker trips',
        'the cat sat on the mat',
      ],
      [
        'How do I reset my password?',
        'I forgot my login credentials and need to change them',
        'The stock market fell sharply today',
      ],
      [
        'A man is playing a guitar.',
        'Someone is strumming a musical instrument.',
        'The recipe needs two cups of flour.',
      ],
      [
        'requests over the rate limit are rejected',
        'too many calls per minute get refused',
        'the mountains are covered in fresh snow',
      ],
    ];
    const vectors = await embed(triples.flat());
    for (const [i, [anchor, similar, unrelated]] of triples.entries()) {
      const [a, s, u] = vectors.slice(i * 3, i * 3 + 3) as [number[], number[], number[]];
      const close = cosine(a, s);
      const far = cosine(a, u);
      expect(close, `"${anchor}" vs "${similar}" (${close}) / "${unrelated}" (${far})`).toBeGreaterThan(
        far + 0.2,
      );
    }
  });

  it('embeddings:test-server-errors — OpenAI-shaped 400s for bad input, 401 without the configured key', async () => {
    const model = open.model;
    const cases: [string, unknown, string][] = [
      ['empty string', { model, input: '' }, 'invalid_input'],
      ['empty array', { model, input: [] }, 'invalid_input'],
      ['missing input', { model }, 'missing_required_parameter'],
      ['non-string item', { model, input: ['fine', 42] }, 'invalid_input'],
      ['token array', { model, input: [[101, 102]] }, 'invalid_input'],
      ['too many inputs', { model, input: Array.from({ length: 2049 }, () => 'x') }, 'too_many_inputs'],
      ['unknown model', { model: 'text-embedding-3-small', input: 'x' }, 'model_not_found'],
      ['other dimensions', { model, input: 'x', dimensions: 256 }, 'invalid_dimensions'],
      ['not JSON', '{"model":', 'invalid_json'],
    ];
    for (const [name, body, code] of cases) {
      const { status, json } = await post(open, body);
      expect(status, name).toBe(400);
      const { error } = json as ErrorResponse;
      expect(error.type, name).toBe('invalid_request_error');
      expect(error.code, name).toBe(code);
      expect(error.message.length, name).toBeGreaterThan(0);
    }
    const ok = { model, input: 'hello' };
    for (const headers of [{}, { authorization: 'Bearer wrong-key' }, { authorization: API_KEY }]) {
      const { status, json } = await post(guarded, ok, headers);
      expect(status).toBe(401);
      expect((json as ErrorResponse).error.code).toBe('invalid_api_key');
    }
    expect((await post(guarded, ok, { authorization: `Bearer ${API_KEY}` })).status).toBe(200);
    const models = await fetch(`${guarded.url}/v1/models`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual([model]);
    expect((await fetch(`${guarded.url}/v1/models`)).status).toBe(401);
    const health = await fetch(`${guarded.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok', model, dimensions: 384 });
  });

  it('embeddings:test-model-throughput — 32 chunks of 128 tokens in one request (logged, not asserted)', async () => {
    const words =
      'the gateway sends each agent request to an upstream server and returns its answer with a citation'.split(
        ' ',
      );
    // 126 single-token words + [CLS] + [SEP] = 128 tokens; each chunk starts at another word.
    const chunks = Array.from({ length: 32 }, (_, c) =>
      Array.from({ length: 126 }, (_, i) => words[(i + c) % words.length]).join(' '),
    );
    await embed(chunks.slice(0, 2)); // warm-up
    const started = performance.now();
    const { status, json } = await post(open, { model: open.model, input: chunks });
    const seconds = (performance.now() - started) / 1000;
    expect(status).toBe(200);
    const body = json as EmbeddingsResponse;
    expect(body.data).toHaveLength(32);
    console.log(
      `embeddings throughput: ${(32 / seconds).toFixed(1)} chunks/s (32 chunks, ${body.usage.prompt_tokens / 32} tokens each, one batch, ${seconds.toFixed(2)} s)`,
    );
  }, 300_000);
});
