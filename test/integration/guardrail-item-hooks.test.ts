// Guardrail hooks and secret masking on resources/read and prompts/get (issue 41 part 5), on a real
// gateway: a real HTTP hook (test/support/hook-server.ts) that decides by what it is asked about
// (denies, rewrites prompt arguments, a read's URI and both kinds of result, stalls), SDK clients of
// both eras, and two real upstreams with resources, a template and a prompt (the modern fixture).
// A key that cannot see a source gets today's answers and no hook is asked; a hook cannot point a
// read at another source; credentials an upstream echoes into a note or a prompt are masked.
import { describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { fakeCredentials, secretPart } from '../support/fake-credentials.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { fileHarness, startWorkspace } from '../support/gateway-harness.js';
import { startHookServer, STALL, type HookServer } from '../support/hook-server.js';
import { fileClients, rpcCall } from '../support/mcp-clients.js';

const HOOK_SECRET = 'item-hook-secret-7d2e-never-in-logs';
const [reader, narrow] = newKeys(2);
const samples = fakeCredentials();
const SAMPLES = Object.entries(samples) as [keyof typeof samples, string][];

const note = (key: string) => `agw://modern/~/demo://note/${key}`;
const OTHER_README = `agw://other/${encodeURIComponent('demo://readme')}`;

let hooks: HookServer;
let modern: RunningModernServer;
let other: RunningModernServer;

const textsOf = (value: unknown): string[] => {
  const record = (value ?? {}) as {
    contents?: { text?: string }[];
    messages?: { content: { text?: string } }[];
  };
  return [
    ...(record.contents ?? []).map((item) => item.text ?? ''),
    ...(record.messages ?? []).map((item) => item.content.text ?? ''),
  ];
};

/** The hook decides by the target and payload it is sent, as a real DLP service would. */
function decide(body: Record<string, unknown>): unknown {
  const args = (body['arguments'] ?? {}) as Record<string, string>;
  const texts = textsOf(body['result']).join('\n');
  if (body['phase'] === 'request' && body['method'] === 'prompts/get') {
    if (args['name'] === 'Mallory') return { decision: 'deny', reason: 'no greetings for Mallory' };
    if (args['name'] === 'Stall') return STALL;
    if (args['name'] === 'Eve') return { decision: 'rewrite', arguments: { name: 'Eve (checked)' } };
  }
  if (body['phase'] === 'request' && body['method'] === 'resources/read') {
    const uri = String(args['uri']);
    if (uri.endsWith('/secret-room')) return { decision: 'deny', reason: 'sealed room' };
    if (uri.endsWith('/narrowed')) return { decision: 'rewrite', arguments: { uri: note('alpha') } };
    if (uri.endsWith('/elsewhere')) return { decision: 'rewrite', arguments: { uri: OTHER_README } };
  }
  if (body['phase'] === 'response' && texts.includes('Please greet Grace.'))
    return {
      decision: 'rewrite',
      result: { messages: [{ role: 'user', content: { type: 'text', text: 'Greet Grace politely.' } }] },
    };
  if (body['phase'] === 'response' && texts.includes('note rewrite-me'))
    return {
      decision: 'rewrite',
      result: { contents: [{ uri: note('rewrite-me'), mimeType: 'text/plain', text: 'contents replaced' }] },
    };
  return { decision: 'allow' };
}

const h = fileHarness(
  async () => {
    hooks = await startHookServer(HOOK_SECRET, (_path, body) => decide(body));
    [modern, other] = await Promise.all([startModernServer(), startModernServer()]);
    return startWorkspace(
      {
        mcpSources: [httpSource('modern', modern.url), httpSource('other', other.url)],
        keys: [keyRecord(reader, { sources: ['modern'] }), keyRecord(narrow, { sources: ['other'] })],
        governance: {
          guardrails: {
            hooks: [
              {
                name: 'items',
                url: `${hooks.url}/items`,
                methods: ['resources/read', 'prompts/get'],
                phases: ['request', 'response'],
                // Narrows tools/call only: this hook still sees every read and prompt.
                tools: ['modern__echo'],
                secret: { env: 'HOOK_SECRET' },
                timeoutMs: 300,
              },
            ],
          },
        },
      },
      {},
      { HOOK_SECRET },
    );
  },
  async () => {
    await Promise.all([modern.close(), other.close()]);
    await hooks.close();
  },
);

const client = fileClients(h, reader.key);

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { message: string; code?: number },
  );
const readsOf = (server: RunningModernServer, suffix: string) =>
  server.log.filter((entry) => entry.rpcMethod === 'resources/read' && entry.uri?.endsWith(suffix) === true);

describe.each(['auto', 'legacy'] as const)('guardrail hooks on resources and prompts (%s)', (era) => {
  it('guardrails:item-hook-wire — the hook is asked about a read and a prompt, signed, with the documented body', async () => {
    const mcp = await client(era);
    const before = hooks.seen.length;
    await mcp.readResource({ uri: note('alpha') });
    await mcp.getPrompt({ name: 'modern__greet', arguments: { name: 'Ada' } });
    const mine = hooks.seen.slice(before);
    expect(mine.map((seen) => `${String(seen.body['method'])} ${String(seen.body['phase'])}`)).toEqual([
      'resources/read request',
      'resources/read response',
      'prompts/get request',
      'prompts/get response',
    ]);
    expect(mine.every((seen) => seen.verified)).toBe(true);
    expect(mine[0]?.body).toMatchObject({
      hook: 'items',
      resource: { source: 'modern', uri: note('alpha'), upstreamUri: 'demo://note/alpha' },
      arguments: { uri: note('alpha') },
    });
    expect(mine[2]?.body).toMatchObject({
      prompt: { source: 'modern', name: 'modern__greet', upstreamName: 'greet' },
      arguments: { name: 'Ada' },
    });
    expect(textsOf(mine[3]?.body['result'])).toEqual(['Please greet Ada.']);
  });

  it('guardrails:item-hook-deny — a deny on a read and on a prompt is a permission error; nothing is relayed', async () => {
    const mcp = await client(era);
    const read = await failure(mcp.readResource({ uri: note('secret-room') }));
    expect(read?.code).toBe(-31003);
    expect(read?.message).toContain(
      `the guardrail items refused this call to ${note('secret-room')}: sealed room`,
    );
    expect(readsOf(modern, '/secret-room')).toEqual([]);
    const before = modern.log.length;
    const prompt = await failure(mcp.getPrompt({ name: 'modern__greet', arguments: { name: 'Mallory' } }));
    expect(prompt?.code).toBe(-31003);
    expect(prompt?.message).toContain(
      'the guardrail items refused this call to modern__greet: no greetings for Mallory',
    );
    expect(modern.log.slice(before).some((entry) => entry.rpcMethod === 'prompts/get')).toBe(false);
  });

  it('guardrails:item-hook-rewrite-arguments — the upstream receives the prompt arguments the hook rewrote', async () => {
    const mcp = await client(era);
    const result = await mcp.getPrompt({ name: 'modern__greet', arguments: { name: 'Eve' } });
    expect(textsOf(result)).toEqual(['Please greet Eve (checked).']);
  });

  it('guardrails:item-hook-rewrite-result — response hooks replace a prompt and a resource the caller sees', async () => {
    const mcp = await client(era);
    const prompt = await mcp.getPrompt({ name: 'modern__greet', arguments: { name: 'Grace' } });
    expect(textsOf(prompt)).toEqual(['Greet Grace politely.']);
    const resource = await mcp.readResource({ uri: note('rewrite-me') });
    expect(textsOf(resource)).toEqual(['contents replaced']);
  });

  it('guardrails:item-hook-stall-closed — a prompt hook that does not answer in time refuses it, naming the hook only', async () => {
    const mcp = await client(era);
    const started = Date.now();
    const error = await failure(mcp.getPrompt({ name: 'modern__greet', arguments: { name: 'Stall' } }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error?.code).toBe(-31023);
    expect(error?.message).toContain('The guardrail items could not decide on modern__greet');
    expect(error?.message).not.toContain('127.0.0.1');
  });

  it('guardrails:mask-items — credentials an upstream echoes into a resource and a prompt message are masked', async () => {
    const mcp = await client(era);
    for (const [kind, sample] of SAMPLES) {
      const read = await mcp.readResource({ uri: note(encodeURIComponent(`value: ${sample}`)) });
      const prompt = await mcp.getPrompt({ name: 'modern__greet', arguments: { name: `value: ${sample}` } });
      for (const [what, texts] of [
        ['resource', textsOf(read)],
        ['prompt', textsOf(prompt)],
      ] as const) {
        expect(texts.join(''), `${what} ${kind}`).toContain(`[masked:${kind}]`);
        expect(texts.join(''), `${what} ${kind}`).not.toContain(secretPart(kind, sample));
      }
    }
  });
});

describe('what a hook may not widen', () => {
  it('guardrails:item-hook-invisible — a resource or prompt of a source the key cannot see answers as today, with no hook call', async () => {
    const before = hooks.seen.length;
    const hidden = await rpcCall(h.url, narrow.key, 'resources/read', { uri: note('alpha') });
    const missing = await rpcCall(h.url, narrow.key, 'resources/read', {
      uri: 'agw://nosuch/~/demo://note/alpha',
    });
    expect(hidden.error?.code).toBe(missing.error?.code);
    expect(hidden.error?.message).toBe(`Resource not found: ${note('alpha')}`);
    expect(hidden.error?.data).toEqual(missing.error?.data);
    const hiddenPrompt = await rpcCall(h.url, narrow.key, 'prompts/get', { name: 'modern__greet' });
    const missingPrompt = await rpcCall(h.url, narrow.key, 'prompts/get', { name: 'nosuch__greet' });
    expect(hiddenPrompt.error).toEqual({ ...missingPrompt.error, message: 'Unknown prompt: modern__greet' });
    expect(hooks.seen.length).toBe(before);
    // The same key's own source is guarded: the hook was not skipped for want of hooks.
    const own = await rpcCall(h.url, narrow.key, 'resources/read', { uri: OTHER_README });
    expect(textsOf(own.result)).toEqual(['Hello from the modern fixture.']);
    expect(hooks.seen.length).toBe(before + 2);
  });

  it('guardrails:item-hook-retarget — a rewritten URI stays within its source: narrowing is relayed, pointing elsewhere fails closed', async () => {
    const narrowed = await rpcCall(h.url, reader.key, 'resources/read', { uri: note('narrowed') });
    expect(textsOf(narrowed.result)).toEqual(['note alpha']);
    expect(readsOf(modern, '/narrowed')).toEqual([]);
    const otherReads = readsOf(other, 'readme').length;
    const elsewhere = await rpcCall(h.url, reader.key, 'resources/read', { uri: note('elsewhere') });
    expect(elsewhere.error?.code).toBe(-31023);
    expect(elsewhere.error?.data).toMatchObject({ code: 'guardrail_unavailable', guardrail: 'items' });
    expect(readsOf(other, 'readme').length).toBe(otherReads);
    expect(readsOf(modern, '/elsewhere')).toEqual([]);
    expect(h.logs.some((line) => line.includes('"reason":"retargeted"') && line.includes('items'))).toBe(
      true,
    );
  });

  it('guardrails:no-secrets-in-logs — no credential, prompt argument or hook secret of these tests is logged', () => {
    const logs = h.logs.join('\n');
    for (const [kind, sample] of SAMPLES) expect(logs, kind).not.toContain(secretPart(kind, sample));
    expect(logs).not.toContain(HOOK_SECRET);
    expect(logs).not.toContain('Mallory');
    expect(logs).not.toContain(hooks.url);
  });
});
