// Text at the REST boundary (issue 8 items 5 and 16): lone UTF-16 surrogates from a client or an
// upstream never 500 a route, in TOON or JSON, and come out as U+FFFD; every body ends with "\n".
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@toon-format/toon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { startHostileNamesServer } from '../fixtures/upstreams/hostile-names-server.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, startWorkspace, type Harness } from '../support/gateway-harness.js';

const key = newKey();
let upstream: RunningUpstream;
let h: Harness;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agw-encoding-'));
  await writeFile(join(dir, 'notes.md'), '# Notes\n\nSurrogate handling keeps every route answering.\n');
  upstream = await startHostileNamesServer();
  h = await startWorkspace(
    {
      mcpSources: [httpSource('hostile', upstream.url)],
      dataSources: [{ name: 'notes', type: 'files', path: dir }],
      keys: [keyRecord(key, { access: 'write' })],
    },
    {
      knowledge: { sqlitePath: join(dir, 'index.sqlite') },
    },
  );
});
afterAll(async () => {
  await h.stop();
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

/** A raw JSON body with a lone surrogate escape, as a client would send it. */
function post(path: string, rawBody: string, format: 'json' | 'toon'): Promise<Response> {
  return fetch(`${h.url}${path}?response_format=${format}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: rawBody,
  });
}

describe.each(['json', 'toon'] as const)('%s bodies', (format) => {
  it(`rest:lone-surrogate-input — a lone surrogate in a search or query never 500s (${format})`, async () => {
    for (const path of ['/agent/search', '/agent/query']) {
      for (const query of ['"\\ud800"', '"surrogate \\udfff handling"', '"\\ud800\\ud800 x"']) {
        const response = await post(path, `{"query":${query}}`, format);
        expect(response.status, `${path} ${query}`).toBe(200);
        const text = await response.text();
        expect(text.isWellFormed()).toBe(true);
        expect(text.endsWith('\n')).toBe(true);
      }
    }
  });

  it(`rest:lone-surrogate-upstream — an upstream description with a lone surrogate is served as U+FFFD (${format})`, async () => {
    const response = await get(`${h.url}/agent/tools?response_format=${format}`, key.key);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.endsWith('\n')).toBe(true);
    const body = (format === 'json' ? JSON.parse(text) : decode(text)) as {
      tools: { name: string; description: string }[];
    };
    const tool = body.tools.find((t) => t.name === 'hostile__fine_tool');
    expect(tool?.description).toBe('fine \uFFFD tool');
  });
});

it('rest:body-newline — error bodies end with a newline too', async () => {
  const response = await get(`${h.url}/agent/nothing-here`, key.key);
  expect(response.status).toBe(404);
  expect((await response.text()).endsWith('}\n')).toBe(true);
});
