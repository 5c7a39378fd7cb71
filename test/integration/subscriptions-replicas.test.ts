// Subscriptions across replicas (issue 24): two gateways sharing one real redis-server in front of
// the real conformance fixture (a 2025 sessionful upstream whose session the replicas share). An
// update caused through replica A reaches a listen stream on replica B, and a 2025 client's GET
// stream on B whose subscription was POSTed to A; two streams on one replica cost one upstream
// subscription.
import { expect, it } from 'vitest';
import { startConformanceServer } from '../fixtures/upstreams/conformance-server.js';
import { forwarding, mcpPost, newKey, type Harness } from '../support/gateway-harness.js';
import { connectUpdateListener } from '../support/mcp-clients.js';
import { fileReplicas, startReplicaHarnesses } from '../support/redis-replicas.js';
import { openListen, waitFor } from '../support/sse-stream.js';

const WATCHED_URI = `agw://conf/${encodeURIComponent('test://watched-resource')}`;
const key = newKey();
const { upstream, gateways } = fileReplicas(
  startReplicaHarnesses,
  2,
  startConformanceServer,
  'conf',
  key,
  'alpha',
);
const a = forwarding(() => gateways[0] as Harness);
const b = forwarding(() => gateways[1] as Harness);

function listen(url: string, id: string) {
  return openListen(url, key.key, id, { resourceSubscriptions: [WATCHED_URI] });
}

async function updateThrough(url: string): Promise<void> {
  const response = await mcpPost(url, key.key, {
    method: 'tools/call',
    params: { name: 'conf__update_watched_resource', arguments: {} },
  });
  expect(response.status).toBe(200);
}

const subscribes = () => upstream.log.filter((entry) => entry.rpcMethod === 'resources/subscribe').length;

it('subscriptions:cross-replica-listen — an update caused through A reaches a listen stream on B; one upstream subscription per replica', async () => {
  const before = subscribes();
  const first = await listen(b.url, 'on-b-1');
  const second = await listen(b.url, 'on-b-2');
  try {
    expect(await first.next()).toMatchObject({
      params: { notifications: { resourceSubscriptions: [WATCHED_URI] } },
    });
    await second.next();
    expect(subscribes() - before).toBe(1);
    await updateThrough(a.url);
    for (const [stream, id] of [
      [first, 'on-b-1'],
      [second, 'on-b-2'],
    ] as const)
      expect(await stream.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: WATCHED_URI, _meta: { 'io.modelcontextprotocol/subscriptionId': id } },
      });
  } finally {
    first.close();
    second.close();
  }
});

it('subscriptions:cross-replica-legacy — a subscription POSTed to A is delivered on the GET stream the client holds on B', async () => {
  const { client, updates } = await connectUpdateListener(b.url, key.key, 'it-replicas');
  try {
    const subscribed = await fetch(`${a.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${key.key}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/subscribe',
        params: { uri: WATCHED_URI },
      }),
    });
    expect(await subscribed.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await waitFor(async () => {
      await updateThrough(a.url);
      return updates.length > 0;
    }, 10_000);
    expect(updates[0]).toBe(WATCHED_URI);
  } finally {
    await client.close();
  }
});
