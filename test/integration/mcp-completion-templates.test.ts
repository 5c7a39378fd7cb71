// completion/complete and resource templates through the gateway (issue 24), in both eras: routed
// to the owning source in its own names, invisible sources answering like missing ones, and
// templates namespaced as `agw://<source>/~/<upstream template>` so that what a client expands from
// them reads back through the right source with the upstream's own expansion of any value.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { UriTemplate } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { everythingStdioParams } from '../fixtures/upstreams/everything-server.js';
import { keyRecord, newKeys } from '../support/gateway-document.js';
import { startWorkspace } from '../support/gateway-harness.js';
import { pairHarness } from '../support/fixture-pair.js';
import { connectClient, rpcCall, type RpcAnswer } from '../support/mcp-clients.js';
import { runPythonClient } from '../support/python-client.js';

/** Values a template variable is expanded with: slashes, percent signs, unicode, dot segments. */
const ODD_VALUES = ['a/b', '100%', '%2F', 'é ü', '..', '../etc/passwd', 'x?y#z&w=1', '{key}'];

const [all, otherOnly, modernOnly] = newKeys(3);
const [h, upstreams] = pairHarness((pair) => {
  const everything = everythingStdioParams();
  return startWorkspace({
    mcpSources: [
      ...pair.sources,
      { name: 'everything', transport: 'stdio', command: everything.command, args: everything.args },
    ],
    keys: [
      keyRecord(all),
      keyRecord(otherOnly, { sources: ['other'] }),
      keyRecord(modernOnly, { sources: ['modern'] }),
    ],
  });
}, 60_000);

function connect(key: string, mode: 'auto' | 'legacy'): Promise<Client> {
  return connectClient(h.url, key, mode, 'it-completion');
}

function rpc(key: string, method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
  return rpcCall(h.url, key, method, params);
}

const ERAS = [
  ['auto', 'modern'],
  ['legacy', 'legacy'],
] as const;

describe('completion/complete', () => {
  it('mcp:completion-routed — the v2 SDK client completes prompt and template arguments of each source through the gateway, in both eras', async () => {
    for (const [mode, era] of ERAS) {
      const client = await connect(all.key, mode);
      expect(client.getProtocolEra()).toBe(era);
      expect(client.getServerCapabilities()?.completions).toEqual({});
      for (const source of ['modern', 'legacy']) {
        const prompt = await client.complete({
          ref: { type: 'ref/prompt', name: `${source}__greet` },
          argument: { name: 'name', value: 'A' },
        });
        expect(prompt.completion.values, `${mode} ${source}`).toEqual(['Ada', 'Alan']);
      }
      // The published reference server: its second argument completes from the first (context).
      const team = await client.complete({
        ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
        argument: { name: 'name', value: '' },
        context: { arguments: { department: 'Sales' } },
      });
      expect(team.completion.values).toEqual(['David', 'Eve', 'Frank']);
      const { resourceTemplates } = await client.listResourceTemplates();
      const note = resourceTemplates.find((t) => t.name === 'modern__note');
      const keys = await client.complete({
        ref: { type: 'ref/resource', uri: note?.uriTemplate ?? '' },
        argument: { name: 'key', value: 'a' },
      });
      expect(keys.completion.values).toEqual(['alpha', 'a/b']);
      await client.close();
    }
  });

  it('mcp:completion-visibility — a key limited to another source gets the same error for a prompt or template it cannot see as for a missing one', async () => {
    for (const [ref, missing] of [
      [
        { type: 'ref/prompt', name: 'modern__greet' },
        { type: 'ref/prompt', name: 'nosuch__greet' },
      ],
      [
        { type: 'ref/resource', uri: 'agw://modern/~/demo://note/{key}' },
        { type: 'ref/resource', uri: 'agw://nosuch/~/demo://note/{key}' },
      ],
    ] as const) {
      const argument = { name: 'name', value: 'A' };
      const hidden = await rpc(otherOnly.key, 'completion/complete', { ref, argument });
      const absent = await rpc(otherOnly.key, 'completion/complete', { ref: missing, argument });
      expect(hidden.result).toBeUndefined();
      expect(hidden.error?.code).toBe(-32602);
      expect(JSON.stringify(hidden.error).replaceAll('modern', 'X')).toBe(
        JSON.stringify(absent.error).replaceAll('nosuch', 'X'),
      );
    }
    // The same key on the legacy face, and a key that sees only the modern source.
    const legacyFace = await connect(otherOnly.key, 'legacy');
    await expect(
      legacyFace.complete({
        ref: { type: 'ref/prompt', name: 'legacy__greet' },
        argument: { name: 'name', value: '' },
      }),
    ).rejects.toThrow('Unknown prompt: legacy__greet');
    await legacyFace.close();
    const hidden = await rpc(modernOnly.key, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'legacy__greet' },
      argument: { name: 'name', value: 'A' },
    });
    expect(hidden.error?.message).toBe('Unknown prompt: legacy__greet');
  });

  it('mcp:completion-invalid-ref — a ref that is neither a prompt nor a resource is refused as invalid params', async () => {
    const answer = await rpc(all.key, 'completion/complete', {
      ref: { type: 'ref/tool', name: 'modern__echo' },
      argument: { name: 'x', value: '' },
    });
    expect(answer.error?.code).toBe(-32602);
    const noArgument = await rpc(all.key, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'modern__greet' },
    });
    expect(noArgument.error?.code).toBe(-32602);
  });
});

describe('resources/templates/list', () => {
  it('mcp:resource-templates-aggregated — templates of every source are listed as <source>__<name> with agw://<source>/~/<template>, in both eras', async () => {
    for (const [mode] of ERAS) {
      const client = await connect(all.key, mode);
      const { resourceTemplates } = await client.listResourceTemplates();
      const byName = Object.fromEntries(resourceTemplates.map((t) => [t.name, t.uriTemplate]));
      expect(byName).toMatchObject({
        modern__note: 'agw://modern/~/demo://note/{key}',
        legacy__note: 'agw://legacy/~/legacy://note/{key}',
        'everything__Dynamic Text Resource': 'agw://everything/~/demo://resource/dynamic/text/{resourceId}',
      });
      await client.close();
    }
    const visible = await rpc(modernOnly.key, 'resources/templates/list', {});
    expect((visible.result?.['resourceTemplates'] as { name: string }[]).map((t) => t.name)).toEqual([
      'modern__note',
    ]);
  });

  it('mcp:resource-templates-read — a URI expanded from a gateway template with odd values reads back through its source as the upstream reads its own expansion, in both eras', async () => {
    const direct = {
      modern: { client: await connectDirect(upstreams.modern.url), template: 'demo://note/{key}' },
      legacy: { client: await connectDirect(upstreams.legacy.url), template: 'legacy://note/{key}' },
    };
    for (const [mode] of ERAS) {
      const client = await connect(all.key, mode);
      const { resourceTemplates } = await client.listResourceTemplates();
      for (const source of ['modern', 'legacy'] as const) {
        const template = resourceTemplates.find((t) => t.name === `${source}__note`)?.uriTemplate ?? '';
        for (const value of ODD_VALUES) {
          const uri = new UriTemplate(template).expand({ key: value });
          const upstreamUri = new UriTemplate(direct[source].template).expand({ key: value });
          expect(uri).toBe(`agw://${source}/~/${upstreamUri}`);
          const own = await outcome(direct[source].client.readResource({ uri: upstreamUri }));
          const through = await outcome(client.readResource({ uri }));
          if (value === '..') {
            // `<scheme>://note/..` is a dot segment the upstream SDKs resolve away, so they find no
            // note; the gateway forwards the URI as expanded and relays the upstream's own answer.
            const upstreamMessage = String(own['error']).replace(/^MCP error -?\d+: /, '');
            expect(upstreamMessage).toMatch(/not found/);
            expect(String(through['error']), `${mode} ${source} ${value}`).toContain(upstreamMessage);
            continue;
          }
          expect(own).toEqual({
            contents: [{ uri: upstreamUri, mimeType: 'text/plain', text: `note ${value}` }],
          });
          expect(through, `${mode} ${source} ${value}`).toEqual({
            contents: [{ uri, mimeType: 'text/plain', text: `note ${value}` }],
          });
        }
      }
      const dynamic = resourceTemplates.find((t) => t.name === 'everything__Dynamic Text Resource');
      const uri = new UriTemplate(dynamic?.uriTemplate ?? '').expand({ resourceId: '7' });
      const read = await client.readResource({ uri });
      expect(read.contents[0]?.uri).toBe(uri);
      expect(JSON.stringify(read.contents[0])).toContain('Resource 7');
      await client.close();
    }
    await direct.modern.client.close();
    await direct.legacy.client.close();
    // What a template expands to is private to its source like any other resource.
    const uri = new UriTemplate('agw://legacy/~/legacy://note/{key}').expand({ key: 'a/b' });
    const hidden = await rpc(modernOnly.key, 'resources/read', { uri });
    expect(hidden.error?.message).toBe(`Resource not found: ${uri}`);
  });
});

async function connectDirect(url: string): Promise<Client> {
  const client = new Client(
    { name: 'it-direct', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function outcome(read: Promise<{ contents: unknown[] }>): Promise<Record<string, unknown>> {
  try {
    return { contents: (await read).contents };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

interface PythonSaw {
  protocol_version: string;
  prompt_completion?: string[];
  prompt_completion_error?: { code: number; message: string };
  templates?: Record<string, string>;
  template_completion?: string[];
  read_uri?: string;
  read?: { uri: string; text?: string }[];
  read_error?: { code: number; message: string };
  error?: { type: string; message: string };
}

function python(key: string, mode: 'auto' | 'legacy', args: string[]): Promise<PythonSaw> {
  return runPythonClient<PythonSaw>('complete_and_read.py', h.url, key, mode, args);
}

describe('through the Python SDK', () => {
  it('mcp:completion-python-sdk — the Python SDK completes a prompt argument and a template variable through the gateway, and a key limited to another source gets Unknown prompt, in both eras', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      const saw = await python(all.key, mode, [
        '--prompt',
        'legacy__greet',
        '--argument',
        'name',
        '--prefix',
        'G',
        '--template',
        'modern__note',
        '--value',
        'alpha',
      ]);
      expect(saw.protocol_version).toBe(mode === 'auto' ? '2026-07-28' : '2025-11-25');
      expect(saw.prompt_completion).toEqual(['Grace']);
      expect(saw.template_completion).toEqual(['alpha', 'a/b', 'é']);
      const hidden = await python(otherOnly.key, mode, ['--prompt', 'legacy__greet', '--argument', 'name']);
      expect(hidden.prompt_completion_error).toEqual({
        code: -32602,
        message: 'Unknown prompt: legacy__greet',
      });
    }
  });

  it('mcp:resource-templates-python-sdk — the Python SDK lists the gateway templates, expands one with an odd value and reads it back, in both eras', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      for (const template of ['modern__note', 'legacy__note']) {
        const value = '../100%/é ü?#';
        const saw = await python(all.key, mode, [
          '--prompt',
          'modern__greet',
          '--argument',
          'name',
          '--template',
          template,
          '--value',
          value,
        ]);
        expect(saw.templates?.[template]).toMatch(/^agw:\/\/(modern|legacy)\/~\//);
        expect(saw.read, JSON.stringify(saw)).toEqual([
          expect.objectContaining({ uri: saw.read_uri, text: `note ${value}` }),
        ]);
      }
    }
  });
});
