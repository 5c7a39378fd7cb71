// Resource subscriptions through the gateway (issue 24): the 2026 `subscriptions/listen` stream (raw
// wire, the v2 SDK client, the Python SDK) and the legacy face's `resources/subscribe` with updates on
// the key's GET /mcp stream (the v1 SDK client), relayed from the real conformance fixture server;
// the stream bounds (caps, idle timeout, lost access, shutdown) and scoping (other sources, other
// workspaces, other era, no existence oracle).
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startConformanceServer,
  type RunningConformanceServer,
} from '../fixtures/upstreams/conformance-server.js';
import { httpSource, keyRecord, newKey, newKeys } from '../support/gateway-document.js';
import { mcpPost, startHarness, type Harness } from '../support/gateway-harness.js';
import { connectUpdateListener } from '../support/mcp-clients.js';
import { runPythonClient } from '../support/python-client.js';
import { openListen, waitFor, type SseStream } from '../support/sse-stream.js';

const WATCHED = 'test://watched-resource';
const WATCHED_URI = `agw://conf/${encodeURIComponent(WATCHED)}`;
const UPDATE_TOOL = 'conf__update_watched_resource';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

const [all, otherOnly, second, other] = newKeys(4);
let upstream: RunningConformanceServer;
let h: Harness;

function workspaces(limits: Record<string, unknown> = {}, extraKeys: Record<string, unknown>[] = []) {
  return {
    server: {
      host: '127.0.0.1',
      port: 0,
      subscriptions: { maxStreamsPerKey: 3, maxUrisPerStream: 3, keepAliveMs: 1000, ...limits },
    },
    workspaces: [
      {
        name: 'alpha',
        mcpSources: [httpSource('conf', upstream.url)],
        keys: [
          keyRecord(all, { access: 'write' }),
          keyRecord(otherOnly, { sources: ['other'] }),
          keyRecord(second),
          ...extraKeys,
        ],
      },
      {
        name: 'beta',
        mcpSources: [httpSource('conf', upstream.url)],
        keys: [keyRecord(other)],
      },
    ],
  };
}

beforeAll(async () => {
  upstream = await startConformanceServer();
  h = await startHarness(workspaces());
}, 60_000);
afterAll(async () => {
  await h.stop();
  await upstream.close();
});

function listen(key: string, id: number | string, notifications: Record<string, unknown>, url = h.url) {
  return openListen(url, key, id, notifications);
}

async function updateWatched(key = all.key): Promise<void> {
  const response = await mcpPost(h.url, key, {
    method: 'tools/call',
    params: { name: UPDATE_TOOL, arguments: {} },
  });
  expect(response.status).toBe(200);
}

async function legacyRpc(key: string, method: string, params: Record<string, unknown>) {
  const response = await fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      result?: unknown;
      error?: { code: number; message: string; data?: Record<string, unknown> };
    },
  };
}

/** subscribe_resource.py (Python SDK) on the watched URI, updated by UPDATE_TOOL, with the `all` key. */
const subscribeWithPython = (mode: 'auto' | 'legacy') =>
  runPythonClient<Record<string, unknown>>('subscribe_resource.py', h.url, all.key, mode, [
    '--uri',
    WATCHED_URI,
    '--tool',
    UPDATE_TOOL,
    '--unknown',
    'agw://ghost/x',
  ]);

describe('subscriptions/listen (2026)', () => {
  it('mcp:listen-ack-first — acknowledges the honoured subset first, stamps the id, relays the update, keeps alive', async () => {
    const stream = await listen(all.key, 'listen-7', {
      toolsListChanged: true,
      promptsListChanged: false,
      resourceSubscriptions: [WATCHED_URI, 'agw://ghost/x', 'not-a-gateway-uri'],
    });
    try {
      expect(stream.status).toBe(200);
      const ack = await stream.next();
      expect(ack).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED_URI] },
          _meta: { [SUBSCRIPTION_ID]: 'listen-7' },
        },
      });
      await updateWatched();
      const update = await stream.next();
      expect(update).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: WATCHED_URI, _meta: { [SUBSCRIPTION_ID]: 'listen-7' } },
      });
      await waitFor(() => stream.comments > 0, 5000);
    } finally {
      stream.close();
    }
  });

  it('mcp:listen-sdk-client — the v2 SDK client listens and hears the update', async () => {
    const client = new ModernClient(
      { name: 'it-listen', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new ModernTransport(new URL(`${h.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${all.key}` } },
      }),
    );
    const updates: string[] = [];
    client.setNotificationHandler(
      'notifications/resources/updated',
      (note) => void updates.push(note.params.uri),
    );
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const subscription = await client.listen({ resourceSubscriptions: [WATCHED_URI] });
      expect(subscription.honoredFilter.resourceSubscriptions).toEqual([WATCHED_URI]);
      await updateWatched();
      await waitFor(() => updates.length > 0, 10_000);
      expect(updates).toEqual([WATCHED_URI]);
      await subscription.close();
    } finally {
      await client.close();
    }
  });

  it('mcp:listen-python — the Python SDK client listens and hears the update', async () => {
    const seen = await subscribeWithPython('auto');
    expect(seen).toEqual({ honored: [WATCHED_URI], event: { type: 'ResourceUpdated', uri: WATCHED_URI } });
  }, 60_000);

  it('mcp:listen-scoping — a key restricted to other sources, another workspace: no update, no oracle', async () => {
    const restricted = await listen(otherOnly.key, 1, {
      resourceSubscriptions: [WATCHED_URI, 'agw://ghost/x'],
    });
    const elsewhere = await listen(other.key, 2, { resourceSubscriptions: [WATCHED_URI] });
    const own = await listen(all.key, 3, { resourceSubscriptions: [WATCHED_URI] });
    try {
      // The invisible source's URI and an unknown one are left out alike.
      expect(await restricted.next()).toMatchObject({ params: { notifications: {} } });
      expect(await elsewhere.next()).toMatchObject({
        params: { notifications: { resourceSubscriptions: [WATCHED_URI] } },
      });
      await own.next();
      await updateWatched();
      expect(await own.next()).toMatchObject({ method: 'notifications/resources/updated' });
      await new Promise((r) => setTimeout(r, 500));
      expect(restricted.events).toHaveLength(1);
      expect(elsewhere.events).toHaveLength(1);
    } finally {
      for (const s of [restricted, elsewhere, own]) s.close();
    }
  });

  it('limits:listen-caps — streams per key and URIs per stream are bounded; bad filters are refused', async () => {
    const open: SseStream[] = [];
    try {
      for (let i = 0; i < 3; i += 1) {
        const stream = await listen(second.key, i, { toolsListChanged: true });
        open.push(stream);
        await stream.next();
      }
      const refused = await listen(second.key, 9, { toolsListChanged: true });
      expect(refused.status).toBe(429);
      const body = (await refused.json()) as { id: unknown; error: { data: Record<string, unknown> } };
      expect(body.id).toBe(9);
      expect(body.error.data).toMatchObject({
        code: 'rate_limited',
        class: 'request',
        limit: { maxStreamsPerKey: 3 },
      });
    } finally {
      for (const s of open) s.close();
    }
    const tooMany = await listen(all.key, 1, {
      resourceSubscriptions: ['agw://a/1', 'agw://a/2', 'agw://a/3', 'agw://a/4'],
    });
    expect(((await tooMany.json()) as { error: { code: number; data: unknown } }).error).toMatchObject({
      code: -32602,
      data: { limit: { maxUrisPerStream: 3 } },
    });
    for (const notifications of [
      { everything: true },
      { toolsListChanged: 'yes' },
      { resourceSubscriptions: [7] },
      { resourceSubscriptions: ['x'.repeat(5000)] },
    ]) {
      const bad = await listen(all.key, 1, notifications);
      expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32602);
    }
  });

  it('mcp:listen-other-era — resources/subscribe is not a 2026 method; listen is not a 2025 one', async () => {
    const modern = await mcpPost(
      h.url,
      all.key,
      { method: 'resources/subscribe', params: { uri: WATCHED_URI } },
      { 'mcp-name': undefined },
    );
    expect(modern.status).toBe(404);
    const legacy = await legacyRpc(all.key, 'subscriptions/listen', {
      notifications: { toolsListChanged: true },
    });
    expect(legacy.body.error?.code).toBe(-32601);
  });
});

describe('resources/subscribe (2025, key-scoped GET stream)', () => {
  it('mcp:legacy-subscribe — the v1 SDK client subscribes, hears the update on its GET stream, unsubscribes', async () => {
    const { client, updates } = await connectUpdateListener(h.url, all.key, 'it-legacy-subscribe');
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      await client.subscribeResource({ uri: WATCHED_URI });
      // The client opens its GET stream on its own after initialize.
      await waitFor(async () => {
        await updateWatched();
        return updates.length > 0;
      }, 10_000);
      expect(updates[0]).toBe(WATCHED_URI);
      await client.unsubscribeResource({ uri: WATCHED_URI });
      await new Promise((r) => setTimeout(r, 300));
      const before = updates.length;
      await updateWatched();
      await new Promise((r) => setTimeout(r, 700));
      expect(updates.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('mcp:legacy-subscribe-python — the Python SDK client subscribes and unsubscribes', async () => {
    const seen = await subscribeWithPython('legacy');
    expect(seen).toEqual({
      subscribed: true,
      unsubscribed: true,
      unknown_error: { code: -32602, message: 'Resource not found: agw://ghost/x' },
    });
  }, 60_000);

  it('mcp:legacy-subscribe-oracle — a source the key cannot see answers like an unknown resource', async () => {
    const hidden = await legacyRpc(otherOnly.key, 'resources/subscribe', { uri: WATCHED_URI });
    const unknown = await legacyRpc(otherOnly.key, 'resources/subscribe', { uri: 'agw://ghost/x' });
    expect(hidden.body.error).toEqual({ code: -32602, message: `Resource not found: ${WATCHED_URI}` });
    expect(unknown.body.error).toEqual({ code: -32602, message: 'Resource not found: agw://ghost/x' });
    // The encoded form of the same URI, and an oversized one.
    const encoded = await legacyRpc(otherOnly.key, 'resources/subscribe', {
      uri: `agw://%63onf/${encodeURIComponent(WATCHED)}`,
    });
    expect(encoded.body.error?.message).toMatch(/^Resource not found: /);
    const huge = await legacyRpc(all.key, 'resources/subscribe', { uri: `agw://conf/${'x'.repeat(5000)}` });
    expect(huge.body.error?.code).toBe(-32602);
  });

  it('mcp:legacy-stream-modern-refused — a 2026 GET is still 405', async () => {
    const response = await fetch(`${h.url}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        authorization: `Bearer ${all.key}`,
      },
    });
    expect(response.status).toBe(405);
  });
});

describe('stream lifetime', () => {
  it('limits:listen-idle — an idle stream ends gracefully with the complete result', async () => {
    const revision = h.gateway.config.current().revision;
    await h.writeConfig(workspaces({ idleTimeoutMs: 1000 }));
    await h.waitForRevision(revision);
    const stream = await listen(all.key, 'idle-1', { toolsListChanged: true });
    await stream.next();
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      id: 'idle-1',
      result: {
        resultType: 'complete',
        _meta: { [SUBSCRIPTION_ID]: 'idle-1', 'io.modelcontextprotocol/serverInfo': expect.any(Object) },
      },
    });
    await stream.ended;
  });

  it('limits:listen-access-lost — a reload that revokes the key ends its streams', async () => {
    const revoked = newKey();
    let revision = h.gateway.config.current().revision;
    await h.writeConfig(workspaces({}, [keyRecord(revoked)]));
    await h.waitForRevision(revision);
    const stream = await listen(revoked.key, 'r', {
      toolsListChanged: true,
      resourceSubscriptions: [WATCHED_URI],
    });
    await stream.next();
    revision = h.gateway.config.current().revision;
    await h.writeConfig(workspaces({}, [keyRecord(revoked, { revoked: true })]));
    await h.waitForRevision(revision);
    expect(await stream.next()).toMatchObject({ id: 'r', result: { resultType: 'complete' } });
  });

  it('mcp:listen-shutdown — shutdown ends open streams gracefully', async () => {
    const local = await startHarness(workspaces());
    const stream = await listen(all.key, 'bye', { toolsListChanged: true }, local.url);
    await stream.next();
    const stopping = local.stop();
    expect(await stream.next()).toMatchObject({
      id: 'bye',
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'bye' } },
    });
    await stopping;
  }, 30_000);
});
