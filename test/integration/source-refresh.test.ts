// POST /agent/sources/{id}/refresh reaches the upstream (issue 8 item 9) in both eras: the gateway's
// discovery cache is dropped and the MCP client's own response cache is never consulted, so a
// refresh sends tools/list upstream even while the upstream's ttlMs hint (60 s here) is fresh.
import { describe, expect, it } from 'vitest';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { pairHarness } from '../support/fixture-pair.js';
import { keyRecord, newKey } from '../support/gateway-document.js';
import { get, startWorkspace } from '../support/gateway-harness.js';

const key = newKey();
const [h, upstreams] = pairHarness((pair) =>
  startWorkspace({ mcpSources: pair.sources, keys: [keyRecord(key, { access: 'write' })] }),
);

const lists = (upstream: RunningUpstream) =>
  upstream.log.filter((entry) => entry.rpcMethod === 'tools/list').length;

describe.each([
  ['modern', () => upstreams.modern],
  ['legacy', () => upstreams.legacy],
])('the %s era', (name, upstream) => {
  it(`discovery:refresh-reaches-upstream — every refresh sends tools/list upstream; plain reads use the cache (${name})`, async () => {
    await get(`${h.url}/agent/tools?response_format=json`, key.key);
    const afterFirst = lists(upstream());
    expect(afterFirst).toBeGreaterThan(0);
    await get(`${h.url}/agent/tools?response_format=json`, key.key);
    expect(lists(upstream())).toBe(afterFirst);
    for (let i = 1; i <= 3; i += 1) {
      const response = await fetch(`${h.url}/agent/sources/${name}/refresh?response_format=json`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { source: { status: string } }).source.status).toBe('ready');
      expect(lists(upstream())).toBe(afterFirst + i);
    }
  });
});
