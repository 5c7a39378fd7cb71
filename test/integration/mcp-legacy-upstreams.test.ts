// 2025-era and 2024-era upstreams behind the gateway (spec §4.2 rule 7, §9.3; duties 15, 21): a v1-SDK
// sessionful server whose session id never leaves the gateway and is re-established when the
// server forgets it, a 2024-11-05 HTTP+SSE server, the published server-everything over both
// Streamable HTTP and stdio, and progress from an SDK-backed upstream on the request's SSE stream.
import { describe, expect, it } from 'vitest';
import {
  everythingStdioParams,
  startEverythingServer,
  type RunningEverythingServer,
} from '../fixtures/upstreams/everything-server.js';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startSseLegacyServer } from '../fixtures/upstreams/sse-legacy-server.js';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, MODERN_META, startHarness, fileHarness } from '../support/gateway-harness.js';

const key = newKey();
let legacy: RunningLegacySessionfulServer;
let sse: RunningUpstream;
let everything: RunningEverythingServer;

const h = fileHarness(
  async () => {
    legacy = await startLegacySessionfulServer({ bearerToken: 'legacy-token' });
    sse = await startSseLegacyServer();
    everything = await startEverythingServer();
    const stdio = everythingStdioParams();
    return startHarness(
      {
        workspaces: [
          {
            name: 'demo',
            mcpSources: [
              httpSource('legacy', legacy.url, {
                credential: { type: 'bearer', secret: { env: 'LEGACY_TOKEN' } },
              }),
              { name: 'sse', transport: 'sse', url: sse.url },
              // Configured as Streamable HTTP; era detection falls back to HTTP+SSE (duty 21).
              httpSource('ssedetect', sse.url),
              httpSource('everything', everything.url),
              { name: 'everystdio', transport: 'stdio', command: stdio.command, args: stdio.args },
            ],
            keys: [keyRecord(key, { access: 'write' })],
          },
        ],
      },
      { LEGACY_TOKEN: 'legacy-token' },
    );
  },
  () => Promise.all([legacy.close(), sse.close(), everything.close()]),
);

async function call(
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = MODERN_META,
) {
  const response = await mcpPost(h.url, key.key, {
    method: 'tools/call',
    params: { _meta: meta, name, arguments: args },
  });
  return { response, text: await response.text() };
}

describe('legacy Streamable HTTP upstream (v1 SDK, sessionful)', () => {
  it('mcp:legacy-session-hidden — the upstream session id is used upstream and never reaches the client', async () => {
    const { response, text } = await call('legacy__echo', { text: 'sessionful' });
    expect(response.status).toBe(200);
    expect(text).toContain('sessionful');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const issued = legacy.sessionsIssued;
    expect(issued.length).toBeGreaterThan(0);
    for (const id of issued) expect(text.includes(id)).toBe(false);
    const calls = legacy.log.filter((r) => r.rpcMethod === 'tools/call');
    expect(calls.at(-1)?.sessionId).toBe(issued.at(-1));
    expect(calls.at(-1)?.authorization).toBe('Bearer legacy-token');
  });

  it('mcp:legacy-session-reinit — when the upstream forgets the session the gateway re-initialises transparently', async () => {
    const before = legacy.sessionsIssued.length;
    await legacy.forgetSessions();
    const { response, text } = await call('legacy__echo', { text: 'after restart' });
    expect(response.status).toBe(200);
    expect(text).toContain('after restart');
    expect(legacy.sessionsIssued.length).toBe(before + 1);
    expect(legacy.log.some((r) => r.status === 404)).toBe(true);
  });

  it('mcp:legacy-progress — progress of an SDK-backed upstream reaches the client as SSE', async () => {
    const { response, text } = await call(
      'legacy__progress_echo',
      { text: 'p', steps: 2 },
      { ...MODERN_META, progressToken: 'legacy-p' },
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = text
      .split('\n\n')
      .filter((b) => b.includes('data: '))
      .map(
        (b) =>
          JSON.parse(b.slice(b.indexOf('data: ') + 6)) as {
            method?: string;
            params?: { progressToken?: string };
            result?: unknown;
          },
      );
    const progress = events.filter((e) => e.method === 'notifications/progress');
    expect(progress.length).toBe(2);
    expect(progress.every((e) => e.params?.progressToken === 'legacy-p')).toBe(true);
    expect(events.at(-1)?.result).toBeDefined();
  });
});

describe('other upstream shapes', () => {
  it('mcp:sse-upstream — a 2024-11-05 HTTP+SSE server works through the gateway', async () => {
    const { response, text } = await call('sse__add', { a: 2, b: 3 });
    expect(response.status).toBe(200);
    expect(text).toContain('5');
  });

  it('mcp:everything — the published server-everything over Streamable HTTP and stdio', async () => {
    const list = (await (await mcpPost(h.url, key.key, { method: 'tools/list' })).json()) as {
      result: { tools: { name: string }[] };
    };
    const names = list.result.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['everything__echo', 'everystdio__echo', 'legacy__echo', 'sse__add']),
    );
    for (const tool of ['everything__echo', 'everystdio__echo']) {
      const { response, text } = await call(tool, { message: `hello from ${tool}` });
      expect(response.status).toBe(200);
      expect(text).toContain(`hello from ${tool}`);
    }
  });

  it('mcp:sse-detected — a server configured as Streamable HTTP that is really HTTP+SSE is detected', async () => {
    const { response, text } = await call('ssedetect__add', { a: 20, b: 22 });
    expect(response.status).toBe(200);
    expect(text).toContain('42');
    const sources = (await (
      await fetch(`${h.url}/agent/sources?response_format=json`, {
        headers: { authorization: `Bearer ${key.key}` },
      })
    ).json()) as {
      sources: {
        id: string;
        transport: string;
        transport_in_use: string;
        era: string;
        era_detected_at: string;
      }[];
    };
    const detected = sources.sources.find((s) => s.id === 'ssedetect');
    expect(detected).toMatchObject({ transport: 'streamable-http', transport_in_use: 'sse', era: 'legacy' });
    expect(Date.parse(detected!.era_detected_at)).not.toBeNaN();
  });
});
