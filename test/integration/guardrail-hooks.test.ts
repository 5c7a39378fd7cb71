// Guardrail hooks and secret masking on a real gateway (issue 41 part 5): a real HTTP hook server
// (node:http) that checks the HMAC of every request, denies, rewrites arguments (request side) and
// results (response side), and stalls (one hook failing closed, one failing open); SDK clients of
// both eras against the demo stdio upstream and the modern fixture (the byte-faithful relay).
// Credentials echoed by a real upstream are masked in results, and none of them, nor the hook
// secret or any argument, reaches the logs.
import { describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { fakeCredentials, secretPart } from '../support/fake-credentials.js';
import { demoSource, httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { fileHarness, startWorkspace } from '../support/gateway-harness.js';
import { startHookServer, STALL, type HookServer } from '../support/hook-server.js';
import { fileClients, rpcCall } from '../support/mcp-clients.js';

const HOOK_SECRET = 'hook-secret-3f9a1c-never-in-logs';
const key = newKey();
const samples = fakeCredentials();

let hooks: HookServer;
let hookUrl = '';
let modern: RunningModernServer;

function answerHook(path: string, body: Record<string, unknown>): unknown {
  if (path === '/stall') return STALL;
  if (path === '/deny') return { decision: 'deny', reason: 'adding is closed for the audit\nweek' };
  if (path === '/rewrite-args') {
    const args = body['arguments'] as Record<string, unknown>;
    return {
      decision: 'rewrite',
      arguments:
        'region' in args ? { ...args, region: 'eu-west' } : { text: `${String(args['text'])} (checked)` },
    };
  }
  if (path === '/rewrite-result')
    return { decision: 'rewrite', result: { content: [{ type: 'text', text: 'rewritten by the hook' }] } };
  if (path === '/malformed') return { decision: 'rewrite', arguments: 'not an object' };
  return { decision: 'allow' };
}

const hook = (name: string, path: string, tools: string[], extra: Record<string, unknown> = {}) => ({
  name,
  url: `${hookUrl}${path}`,
  tools,
  secret: { env: 'HOOK_SECRET' },
  ...extra,
});

const h = fileHarness(
  async () => {
    hooks = await startHookServer(HOOK_SECRET, answerHook);
    hookUrl = hooks.url;
    modern = await startModernServer();
    return startWorkspace(
      {
        mcpSources: [demoSource('demo'), httpSource('modern', modern.url)],
        keys: [keyRecord(key, { access: 'write' })],
        governance: {
          guardrails: {
            hooks: [
              hook('audit-all', '/allow', ['*'], { phases: ['request', 'response'] }),
              hook('no-adding', '/deny', ['demo__add', 'modern__fail']),
              hook('stamp-args', '/rewrite-args', ['demo__echo', 'modern__regional_lookup']),
              hook('replace-result', '/rewrite-result', ['modern__echo'], { phases: ['response'] }),
              hook('stall-closed', '/stall', ['demo__current_time'], { timeoutMs: 300 }),
              hook('stall-open', '/stall', ['demo__list_notes'], { timeoutMs: 300, failure: 'open' }),
              hook('broken', '/malformed', ['modern__slow']),
            ],
          },
        },
      },
      {},
      { HOOK_SECRET },
    );
  },
  async () => {
    await modern.close();
    await hooks.close();
  },
);

const client = fileClients(h, key.key);

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((item) => item.text ?? '').join('');
}

describe.each(['auto', 'legacy'] as const)('guardrail hooks through the SDK client (%s)', (era) => {
  it('guardrails:hook-signed-wire — every hook request is HMAC-signed and carries the documented body, no secrets', async () => {
    const mcp = await client(era);
    const before = hooks.seen.length;
    await mcp.callTool({ name: 'modern__regional_lookup', arguments: { region: 'us-east' } });
    const mine = hooks.seen.slice(before);
    expect(mine.length).toBeGreaterThanOrEqual(3);
    expect(mine.every((request) => request.verified)).toBe(true);
    const audit = mine.find((request) => request.path === '/allow' && request.body['phase'] === 'request');
    expect(audit?.body).toMatchObject({
      version: 'agw.guardrail.v1',
      hook: 'audit-all',
      method: 'tools/call',
      workspace: 'demo',
      principal: { subject: key.id, credential: 'api_key', access: 'write' },
      tool: { source: 'modern', name: 'modern__regional_lookup', upstreamName: 'regional_lookup' },
    });
    expect(JSON.stringify(mine)).not.toContain(key.key);
  });

  it('guardrails:hook-deny — a deny is a permission error naming the hook with its reason; nothing is relayed', async () => {
    const mcp = await client(era);
    const error = await mcp.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } }).then(
      () => undefined,
      (failure: unknown) => failure as { message: string; code?: number },
    );
    expect(error?.message).toContain(
      'Permission denied: the guardrail no-adding refused this call to demo__add',
    );
    expect(error?.message).toContain('adding is closed for the audit week');
    expect(error?.code).toBe(-31003);
    const modernError = await mcp.callTool({ name: 'modern__fail', arguments: {} }).then(
      () => undefined,
      (failure: unknown) => failure as { message: string },
    );
    expect(modernError?.message).toContain('the guardrail no-adding refused this call to modern__fail');
    expect(modern.log.some((request) => request.rpcMethod === 'tools/call' && request.name === 'fail')).toBe(
      false,
    );
  });

  it('guardrails:hook-rewrite-arguments — the upstream receives the rewritten arguments (SDK path and byte-faithful relay with its parameter headers)', async () => {
    const mcp = await client(era);
    const echoed = await mcp.callTool({ name: 'demo__echo', arguments: { text: 'hello' } });
    expect(textOf(echoed)).toBe('hello (checked)');
    const regional = await mcp.callTool({
      name: 'modern__regional_lookup',
      arguments: { region: 'us-east' },
    });
    expect(textOf(regional)).toBe('region=eu-west');
  });

  it('guardrails:hook-rewrite-result — a response hook replaces the result the caller sees', async () => {
    const mcp = await client(era);
    const result = await mcp.callTool({ name: 'modern__echo', arguments: { text: 'original' } });
    expect(textOf(result)).toBe('rewritten by the hook');
  });

  it('guardrails:hook-stall-closed — a hook that does not answer in time refuses the call, naming the hook only', async () => {
    const mcp = await client(era);
    const started = Date.now();
    const error = await mcp.callTool({ name: 'demo__current_time', arguments: {} }).then(
      () => undefined,
      (failure: unknown) => failure as { message: string; code?: number },
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error?.message).toContain('The guardrail stall-closed could not decide on demo__current_time');
    expect(error?.message).not.toContain('127.0.0.1');
    expect(error?.code).toBe(-31023);
  });

  it('guardrails:hook-stall-open — a hook that fails open lets the call through', async () => {
    const mcp = await client(era);
    const result = await mcp.callTool({ name: 'demo__list_notes', arguments: {} });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain('"title":"Welcome"');
  });
});

describe('guardrail hooks on the raw wire', () => {
  it('guardrails:hook-malformed-rewrite — a rewrite into something malformed is a hook failure (closed)', async () => {
    const answer = await rpcCall(h.url, key.key, 'tools/call', {
      name: 'modern__slow',
      arguments: { ms: 1, steps: 1 },
    });
    expect(answer.error?.code).toBe(-31023);
    expect(answer.error?.data).toMatchObject({ code: 'guardrail_unavailable', guardrail: 'broken' });
    expect(modern.log.some((request) => request.rpcMethod === 'tools/call' && request.name === 'slow')).toBe(
      false,
    );
  });

  it('guardrails:mask-upstream-results — credentials a real upstream returns are masked, in both eras', async () => {
    for (const era of ['auto', 'legacy'] as const) {
      const mcp = await client(era);
      for (const [kind, sample] of Object.entries(samples)) {
        // demo__echo's hook appends " (checked)"; the echo is the sample as the upstream saw it.
        const result = await mcp.callTool({ name: 'demo__echo', arguments: { text: `value: ${sample}` } });
        const text = textOf(result);
        expect(text, kind).toContain(`[masked:${kind}]`);
        expect(text, kind).not.toContain(secretPart(kind as keyof typeof samples, sample));
      }
    }
  });

  it('guardrails:no-secrets-in-logs — no credential, hook secret or argument appears in any log line', () => {
    const logs = h.logs.join('\n');
    expect(logs).toContain('guardrail hook failed');
    for (const [kind, sample] of Object.entries(samples))
      expect(logs, kind).not.toContain(secretPart(kind as keyof typeof samples, sample));
    expect(logs).not.toContain(HOOK_SECRET);
    expect(logs).not.toContain('adding is closed');
    expect(logs).not.toContain(hookUrl);
  });
});
