// The limits rung of tools/call (gateway/mcp/tools-call-limits.ts, issue 41 part 4) with the
// in-memory limiter and a real OpenTelemetry meter: an admitted call passes, a refused one throws the
// rate-limit error of /mcp (429, -31018, Retry-After and RateLimit fields, the limit named) and is
// counted under a closed `policy` label; a bridged call's continuation is not counted again.
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalFor } from '../../../gateway/auth/index.js';
import { validateConfig } from '../../../gateway/config/index.js';
import type { CatalogTool } from '../../../gateway/discovery/index.js';
import { MemoryRateLimiter } from '../../../gateway/limits/rate-limiter.js';
import { ToolLimits } from '../../../gateway/limits/tool-limits.js';
import { McpError } from '../../../gateway/mcp/jsonrpc.js';
import type { McpRequest } from '../../../gateway/mcp/mcp-request.js';
import { admitToolCall } from '../../../gateway/mcp/tools-call-limits.js';
import { setTelemetryShutdown, shutdownTelemetry } from '../../../gateway/telemetry/telemetry-handle.js';

class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const reader = new TestReader();

beforeAll(() => {
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  setTelemetryShutdown(() => Promise.resolve());
});

afterAll(async () => {
  await shutdownTelemetry();
  metrics.disable();
});

function requestFor(params: Record<string, unknown> = {}): McpRequest {
  const parsed = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'acme',
        keys: [{ id: 'AAAAAAAAAA', hash: `sha256:${'a'.repeat(64)}` }],
        governance: { toolLimits: [{ name: 'email', tools: ['mail__send_*'], callsPerHour: 2 }] },
      },
    ],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const workspace = parsed.config.workspaces[0];
  const key = workspace?.keys[0];
  if (workspace === undefined || key === undefined) throw new Error('no key');
  return {
    principal: principalFor(key, workspace),
    era: 'modern',
    version: '2026-07-28',
    id: 1,
    method: 'tools/call',
    params: { name: 'mail__send_email', ...params },
    headers: {},
    signal: new AbortController().signal,
    notify: () => undefined,
  };
}

const tool = { name: 'mail__send_email', source: 'mail' } as CatalogTool;

async function refusalCounts(): Promise<Record<string, number>> {
  const { resourceMetrics } = await reader.collect();
  const out: Record<string, number> = {};
  for (const scope of resourceMetrics.scopeMetrics)
    for (const metric of scope.metrics)
      if (metric.descriptor.name === 'agw.ratelimit.refusals')
        for (const point of metric.dataPoints) out[String(point.attributes['policy'])] = Number(point.value);
  return out;
}

describe('the tools/call limits rung', () => {
  it('governance:tool-limit-refusal-shape — past the limit: 429 -31018 rate_limited naming the limit, Retry-After and RateLimit fields, one refusal counted as tool-subject-hour', async () => {
    const now = Date.UTC(2026, 10, 29, 12, 0, 0);
    const limits = new ToolLimits(new MemoryRateLimiter(() => now), () => 'agw:');
    await admitToolCall(limits, requestFor(), tool);
    await admitToolCall(limits, requestFor(), tool);
    // A continuation of a bridged call carries the gateway's sealed requestState: not counted again.
    await admitToolCall(limits, requestFor({ requestState: 'agwb1.x.y' }), tool);
    const refused = await admitToolCall(limits, requestFor(), tool).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    const error = refused as McpError;
    expect(error.httpStatus).toBe(429);
    expect(error.rpcCode).toBe(-31018);
    expect(error.errorClass).toBe('request');
    expect(error.data).toEqual({
      code: 'rate_limited',
      class: 'request',
      retryAfterSeconds: 1800,
      limit: { toolLimit: 'email', per: 'subject', callsPerHour: 2 },
    });
    expect(error.headers).toEqual({
      'retry-after': '1800',
      'ratelimit-policy': '"tool-email-hour";q=2;w=3600',
      ratelimit: '"tool-email-hour";r=0;t=3600',
    });
    expect(error.message).not.toContain('AAAAAAAAAA');
    expect(await refusalCounts()).toEqual({ 'tool-subject-hour': 1 });
  });
});
