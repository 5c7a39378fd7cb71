// Hidden items in the audit trail (issue 29, docs/audit.md "Invisible is told truthfully"): every way
// a key can name a tool, prompt, resource or data source of its workspace that its patterns hide is
// answered exactly like a name that does not exist, and recorded as `decision: denied, reason:
// not_visible` with the source. Real modern upstreams (one unprefixed, one prefixed), two files data
// sources, the MCP face (tools, prompts, resources, subscriptions, the knowledge tools) and REST
// search and query. A name that exists nowhere stays `allowed`.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, startHarnessIn, fileHarness } from '../support/gateway-harness.js';
import { auditRecordOf } from '../support/audit-records.js';
import { until } from '../support/until.js';

/** Sees the unprefixed source `pub` and the data source `handbook`; of pub's tools only echo. */
const narrow = newKey();
/** Sees `pub` only: no data source, so the knowledge tools are hidden from it. */
const noData = newKey();
/** Sees everything (finds the id of a document of `secret`). */
const everything = newKey();
const QUERY = 'where is the cobalt vault';

let pub: RunningModernServer;
let priv: RunningModernServer;

const h = fileHarness(
  async () => {
    pub = await startModernServer();
    priv = await startModernServer();
    return startHarnessIn(async (dir) => {
      for (const folder of ['handbook', 'secret'])
        await mkdir(join(dir, folder)).then(() =>
          writeFile(join(dir, folder, 'vault.md'), `# Vault\n\nThe cobalt vault is in ${folder}.\n`),
        );
      return {
        workspaces: [
          {
            name: 'acme',
            mcpSources: [
              { name: 'pub', transport: 'streamable-http', url: pub.url, prefix: 'never' },
              httpSource('priv', priv.url),
            ],
            dataSources: [
              { name: 'handbook', type: 'files', path: join(dir, 'handbook') },
              { name: 'secret', type: 'files', path: join(dir, 'secret') },
            ],
            keys: [
              keyRecord(narrow, {
                access: 'write',
                sources: ['pub', 'handbook'],
                tools: ['pub__echo', 'search', 'get_document'],
              }),
              keyRecord(noData, { sources: ['pub'] }),
              keyRecord(everything),
            ],
          },
        ],
      };
    });
  },
  async () => {
    await pub.close();
    await priv.close();
  },
);

const recordOf = (response: Response) => auditRecordOf(h.auditPath, response);

/** The caller's answer with the name it asked for blanked: hidden and missing must read the same. */
async function answerOf(response: Response, asked: string): Promise<unknown> {
  const body = (await response.clone().json()) as { error?: { code: number; message: string } };
  return { code: body.error?.code, message: body.error?.message.replace(asked, '<name>') };
}

const call = (key: string, id: number, name: string, args: Record<string, unknown> = {}) =>
  mcpPost(h.url, key, { id, method: 'tools/call', params: { name, arguments: args } });

function rest(path: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${h.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
}

const HIDDEN = { decision: 'denied', reason: 'not_visible' } as const;

describe('hidden items are recorded not_visible on every path', () => {
  it('audit:not-visible-tools — tools/call of a hidden tool: prefixed or bare, pattern or source, a gateway tool', async () => {
    // A tool of a source the key cannot see.
    const ofSource = await call(narrow.key, 1, 'priv__echo');
    expect(await recordOf(ofSource.clone())).toMatchObject({ ...HIDDEN, source: 'priv' });
    // A tool of a visible source that the key's tool patterns hide, by its canonical name…
    const prefixed = await call(narrow.key, 2, 'pub__write_thing', { thing: 'x' });
    expect(await recordOf(prefixed.clone())).toMatchObject({
      ...HIDDEN,
      source: 'pub',
      target: { kind: 'tool', requested: 'pub__write_thing' },
    });
    // …and by its bare name (the source is unprefixed).
    const bare = await call(narrow.key, 3, 'write_thing', { thing: 'x' });
    expect(await recordOf(bare.clone())).toMatchObject({
      ...HIDDEN,
      source: 'pub',
      target: { kind: 'tool', requested: 'write_thing' },
    });
    const missing = await call(narrow.key, 4, 'no_such_tool', { thing: 'x' });
    expect(await answerOf(bare, 'write_thing')).toEqual(await answerOf(missing, 'no_such_tool'));
    const missingRecord = await recordOf(missing);
    expect(missingRecord).toMatchObject({ decision: 'allowed', outcome: 'request' });
    expect(missingRecord.reason).toBeUndefined();
    // A gateway knowledge tool, for a key that sees no data source of a workspace that has some.
    const search = await call(noData.key, 5, 'search', { query: QUERY });
    expect(await recordOf(search.clone())).toMatchObject({
      ...HIDDEN,
      target: { kind: 'tool', requested: 'search' },
    });
    expect(await answerOf(search, 'search')).toEqual(
      await answerOf(await call(noData.key, 6, 'no_such_tool'), 'no_such_tool'),
    );
  });

  it('audit:not-visible-prompts-resources — prompts/get and resources/read of a hidden source', async () => {
    const prompt = await mcpPost(h.url, narrow.key, {
      id: 10,
      method: 'prompts/get',
      params: { name: 'priv__greet', arguments: { name: 'x' } },
    });
    expect(await recordOf(prompt)).toMatchObject({
      ...HIDDEN,
      source: 'priv',
      target: { kind: 'prompt', requested: 'priv__greet' },
    });
    const read = await mcpPost(h.url, narrow.key, {
      id: 11,
      method: 'resources/read',
      params: { uri: `agw://priv/${encodeURIComponent('demo://readme')}` },
    });
    expect(await recordOf(read)).toMatchObject({ ...HIDDEN, source: 'priv', target: { kind: 'resource' } });
    // The 2025 face's resources/subscribe.
    const subscribe = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${narrow.key}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 13,
        method: 'resources/subscribe',
        params: { uri: `agw://priv/${encodeURIComponent('demo://readme')}` },
      }),
    });
    expect(await recordOf(subscribe)).toMatchObject({
      ...HIDDEN,
      method: 'resources/subscribe',
      era: 'legacy',
      source: 'priv',
    });
    // The same through a visible source is allowed.
    const shown = await mcpPost(h.url, narrow.key, {
      id: 12,
      method: 'resources/read',
      params: { uri: 'demo://readme' },
    });
    expect(await recordOf(shown)).toMatchObject({ decision: 'allowed', outcome: 'ok', source: 'pub' });
  });

  it('audit:not-visible-search — REST search and query, and the MCP search tool, narrowed to a hidden data source; get_document of its document', async () => {
    for (const path of ['/agent/search', '/agent/query']) {
      const hidden = await rest(path, narrow.key, { query: QUERY, connector_id: 'secret' });
      expect(hidden.status).toBe(200);
      expect(await recordOf(hidden)).toMatchObject({
        ...HIDDEN,
        face: 'rest',
        source: 'secret',
        target: { kind: 'source', requested: 'secret' },
        outcome: 'ok',
      });
      const shown = await rest(path, narrow.key, { query: QUERY, connector_id: 'handbook' });
      expect(await recordOf(shown)).toMatchObject({
        decision: 'allowed',
        source: 'handbook',
        target: { kind: 'source', requested: 'handbook' },
      });
      const nowhere = await recordOf(await rest(path, narrow.key, { query: QUERY, connector_id: 'nowhere' }));
      expect(nowhere).toMatchObject({
        decision: 'allowed',
        target: { kind: 'source', requested: 'nowhere' },
      });
      expect(nowhere.source).toBeUndefined();
    }
    // get_document of a document of the hidden source, found by a key that sees it.
    const docId = await until('the secret source is indexed', async () => {
      const found = await rest('/agent/search', everything.key, {
        query: QUERY,
        connector_id: 'secret',
        options: { response_format: 'json' },
      });
      const body = (await found.json()) as { results: { doc_id: string }[] };
      return body.results[0]?.doc_id;
    });
    const document = await call(narrow.key, 21, 'get_document', { doc_id: docId });
    expect(await recordOf(document.clone())).toMatchObject({
      ...HIDDEN,
      source: 'secret',
      target: { kind: 'tool', requested: 'get_document' },
    });
    const noDocument = await call(narrow.key, 22, 'get_document', { doc_id: 'no-such-document' });
    expect(await answerOf(document, docId)).toEqual(await answerOf(noDocument, 'no-such-document'));
    const noDocumentRecord = await recordOf(noDocument);
    expect(noDocumentRecord).toMatchObject({ decision: 'allowed', outcome: 'request' });
    expect(noDocumentRecord.reason).toBeUndefined();
    const tool = await call(narrow.key, 20, 'search', { query: QUERY, connector_id: 'secret' });
    expect(await recordOf(tool)).toMatchObject({
      ...HIDDEN,
      source: 'secret',
      method: 'tools/call',
      target: { kind: 'tool', requested: 'search' },
    });
  });
});
