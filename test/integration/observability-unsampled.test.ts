// A request that sampling leaves out (issues 12 and 13): the gateway makes no spans for it and keeps
// the undici instrumentation out of its relay, yet the upstream still receives the trace context,
// with the not-sampled flag, so the upstream's own parent-based sampler agrees. Real gateway
// process with the SDK on (sampler always_off), a real 2026 upstream and a real OTLP receiver.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeGatewayConfig } from '../bench/bench-gateway.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { freePort } from '../infra/free-port.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost } from '../support/gateway-harness.js';
import { startGatewayProcesses, type GatewayProcess } from '../support/gateway-processes.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

const key = newKey();
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
let upstream: RunningModernServer;
let receiver: OtlpReceiver;
let gateway: GatewayProcess;
let dir: string;

beforeAll(async () => {
  [upstream, receiver] = await Promise.all([startModernServer(), startOtlpReceiver()]);
  dir = await mkdtemp(join(tmpdir(), 'agw-unsampled-'));
  const configPath = await writeGatewayConfig(dir, {
    workspaces: [
      {
        name: 'demo',
        mcpSources: [httpSource('modern', upstream.url)],
        keys: [keyRecord(key, { access: 'write' })],
      },
    ],
  });
  [gateway] = (await startGatewayProcesses(configPath, 1, {
    ...process.env,
    OTEL_SDK_DISABLED: 'false',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_TRACES_SAMPLER: 'parentbased_always_off',
    OTEL_EXPORTER_PROMETHEUS_PORT: String(await freePort()),
  })) as [GatewayProcess];
}, 60_000);

afterAll(async () => {
  await gateway?.child.stop();
  await receiver?.close();
  await upstream?.close();
  await rm(dir, { recursive: true, force: true });
});

async function callEcho(text: string, headers: Record<string, string> = {}) {
  const response = await mcpPost(
    gateway.url,
    key.key,
    { method: 'tools/call', params: { name: 'modern__echo', arguments: { text } } },
    headers,
  );
  expect(response.status).toBe(200);
  const received = upstream.log.find(
    (entry) => entry.rpcMethod === 'tools/call' && JSON.stringify(entry.body).includes(text),
  );
  expect(received).toBeDefined();
  return received;
}

describe('a request that is not sampled', () => {
  it('otel:unsampled-propagation — the upstream gets the trace context flagged not-sampled, no span is exported', async () => {
    const root = await callEcho('unsampled-root');
    expect(root?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const continued = await callEcho('unsampled-continued', {
      traceparent: `00-${CLIENT_TRACE}-00f067aa0ba902b7-00`,
    });
    // The client's trace goes on, still not sampled; `_meta` carries the same context as the header
    // (issue 43: an upstream that reads `_meta` first must agree with the header's not-sampled flag).
    expect(continued?.traceparent).toMatch(new RegExp(`^00-${CLIENT_TRACE}-[0-9a-f]{16}-00$`));
    const metaOf = (entry: typeof root) =>
      (entry?.body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
    expect(metaOf(continued)?.['traceparent']).toBe(continued?.traceparent);
    expect(metaOf(root)?.['traceparent']).toBe(root?.traceparent);
    // Two batch delays and more: nothing of either request (nor of the relay) was exported.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(receiver.spans).toEqual([]);
  });
});
