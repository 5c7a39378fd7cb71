// knowledge.embeddings (issue 22): optional (absent changes nothing), strict, defaults next to the
// fields, and refusals that say what is wrong.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../../gateway/config/index.js';
import { embeddingsFor } from '../../../../gateway/knowledge/index.js';

const withEmbeddings = (embeddings: unknown) => ({ version: 1, knowledge: { embeddings } });

describe('knowledge.embeddings config', () => {
  it('knowledge:embeddings-config — absent by default; defaults filled in when present', () => {
    const plain = validateConfig({ version: 1 });
    expect(plain.ok && plain.config.knowledge.embeddings).toBeUndefined();
    const parsed = validateConfig(
      withEmbeddings({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'all-minilm', apiKey: { env: 'K' } }),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.config.knowledge.embeddings).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'all-minilm',
      apiKey: { env: 'K' },
      batchSize: 64,
      concurrency: 2,
      timeoutMs: 30_000,
      maxRetries: 4,
      cacheMaxEntries: 10_000,
      queryTimeoutMs: 2_000,
    });
  });

  it('knowledge:embeddings-config — refuses bad values with the path and a message in words', () => {
    const base = { baseUrl: 'https://api.example.com/v1', model: 'text-embedding-3-small' };
    const cases: [unknown, string, RegExp][] = [
      [{ ...base, baseUrl: 'ftp://x/v1' }, 'baseUrl', /http\(s\) URL/],
      [{ ...base, baseUrl: 'https://user:pw@api.example.com/v1' }, 'baseUrl', /credentials/],
      [{ ...base, model: '' }, 'model', /name the embedding model/],
      [{ ...base, dimensions: 0 }, 'dimensions', /1 to 8192/],
      [{ ...base, dimensions: 8193 }, 'dimensions', /1 to 8192/],
      [{ ...base, dimensions: 1.5 }, 'dimensions', /whole number/],
      [{ ...base, batchSize: 4096 }, 'batchSize', /1 to 2048/],
      [{ ...base, concurrency: 17 }, 'concurrency', /1 to 16/],
      [{ ...base, requestsPerMinute: 0 }, 'requestsPerMinute', /whole number/],
      [{ ...base, apiKey: 'sk-inline' }, 'apiKey', /secret reference/],
      [{ ...base, perWorkspace: true }, '', /perWorkspace/],
      [{ ...base, queryTimeoutMs: 10 }, 'queryTimeoutMs', /50 to 60000/],
    ];
    for (const [embeddings, field, message] of cases) {
      const result = validateConfig(withEmbeddings(embeddings));
      expect(result.ok, JSON.stringify(embeddings)).toBe(false);
      if (result.ok) continue;
      const problem = result.problems.find((p) => p.path.includes('embeddings'));
      expect(problem?.path, JSON.stringify(embeddings)).toBe(
        field === '' ? 'knowledge.embeddings' : `knowledge.embeddings.${field}`,
      );
      expect(`${problem?.path} ${problem?.message}`).toMatch(message);
    }
  });

  it('knowledge:embeddings-per-workspace — a workspace replaces the gateway-wide provider or turns it off', () => {
    const wide = { baseUrl: 'http://127.0.0.1:9/v1', model: 'wide' };
    const own = { baseUrl: 'http://127.0.0.1:9/v1', model: 'own', dimensions: 256 };
    const parsed = validateConfig({
      version: 1,
      knowledge: { embeddings: wide },
      workspaces: [
        { name: 'inherits' },
        { name: 'replaces', embeddings: own },
        { name: 'off', embeddings: false },
      ],
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(embeddingsFor(parsed.config, 'inherits')?.model).toBe('wide');
    expect(embeddingsFor(parsed.config, 'replaces')).toMatchObject({
      model: 'own',
      dimensions: 256,
      batchSize: 64,
    });
    expect(embeddingsFor(parsed.config, 'off')).toBeUndefined();
    const none = validateConfig({ version: 1, workspaces: [{ name: 'a' }] });
    expect(none.ok && embeddingsFor(none.config, 'a')).toBeUndefined();
    const bad = validateConfig({ version: 1, workspaces: [{ name: 'a', embeddings: true }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems[0]?.path).toBe('workspaces[0].embeddings');
  });
});
