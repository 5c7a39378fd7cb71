// MCP Apps through the gateway (issue 43, ext-apps 2026-01-26): a tool's `ui://` link and the UI
// resource it names keep the `ui://` scheme under every prefix policy (`ui://<source>__…` where the
// gateway namespaces), read back with their HTML, MIME type and `_meta.ui` intact; a key that cannot
// see the source is told the resource does not exist; the client's Apps capability reaches the
// upstream. Real upstreams (the v2 SDK, 2026 only; the v1 SDK, 2025), real clients (the v2 SDK in
// both eras, the v1 SDK), and the ext-apps host helper that refuses any link but `ui://`.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_MIME,
  LIST_META,
  ODD_HTML,
  ODD_URI,
  pageHtml,
  READ_META,
  startAppsServer,
  VIEW_HTML,
} from '../fixtures/upstreams/apps-server.js';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { MODERN_META, startWorkspace, type Harness } from '../support/gateway-harness.js';
import { rpcCall } from '../support/mcp-clients.js';

const UI = 'io.modelcontextprotocol/ui';
const [always, never, autoTwo, autoOne, other] = newKeys(5);
let h: Harness;
let modern: RunningUpstream;
let legacy: RunningUpstream;

beforeAll(async () => {
  modern = await startAppsServer('modern');
  legacy = await startAppsServer('legacy');
  h = await startWorkspace({
    name: 'apps',
    mcpSources: [
      httpSource('wx', modern.url),
      httpSource('wxl', legacy.url),
      httpSource('wxn', modern.url, { prefix: 'never' }),
      httpSource('wxa', modern.url, { prefix: 'auto' }),
      httpSource('wxb', legacy.url, { prefix: 'auto' }),
    ],
    keys: [
      keyRecord(always, { access: 'write', sources: ['wx', 'wxl'] }),
      keyRecord(never, { access: 'write', sources: ['wxn'] }),
      keyRecord(autoTwo, { access: 'write', sources: ['wxa', 'wxb'] }),
      keyRecord(autoOne, { access: 'write', sources: ['wxa'] }),
      keyRecord(other, { access: 'write', sources: ['wxl'] }),
    ],
  });
}, 60_000);
afterAll(async () => {
  await h.stop();
  await modern.close();
  await legacy.close();
});

type Era = 'modern' | 'legacy-v2' | 'legacy-v1';
interface Listed {
  tools: { name: string; _meta?: Record<string, unknown> }[];
  resources: { uri: string; name: string; mimeType?: string; _meta?: unknown }[];
  templates: { uriTemplate: string }[];
  read: (uri: string) => Promise<{ uri: string; mimeType?: string; text?: string; _meta?: unknown }[]>;
  close: () => Promise<void>;
}

const uiCapability = { extensions: { [UI]: { mimeTypes: [APP_MIME] } } };

/** A client of `key` in `era` declaring MCP Apps (or not), and what it lists. */
async function connect(key: string, era: Era, declare = true): Promise<Listed> {
  const headers = { authorization: `Bearer ${key}` };
  const url = new URL(`${h.url}/mcp`);
  if (era === 'legacy-v1') {
    const client = new LegacyClient(
      { name: 'apps-host-v1', version: '1.0.0' },
      declare ? { capabilities: uiCapability } : {},
    );
    await client.connect(new LegacyTransport(url, { requestInit: { headers } }));
    return {
      tools: (await client.listTools()).tools as Listed['tools'],
      resources: (await client.listResources()).resources as Listed['resources'],
      templates: (await client.listResourceTemplates()).resourceTemplates,
      read: async (uri) => (await client.readResource({ uri })).contents as never,
      close: () => client.close(),
    };
  }
  const client = new Client(
    { name: 'apps-host', version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' },
      ...(declare ? { capabilities: uiCapability } : {}),
    },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return {
    tools: (await client.listTools()).tools as Listed['tools'],
    resources: (await client.listResources()).resources as Listed['resources'],
    templates: (await client.listResourceTemplates()).resourceTemplates,
    read: async (uri) => (await client.readResource({ uri })).contents as never,
    close: () => client.close(),
  };
}

const ERAS: readonly Era[] = ['modern', 'legacy-v2', 'legacy-v1'];

function linkOf(listed: Listed, tool: string): string | undefined {
  const found = listed.tools.find((t) => t.name === tool);
  return found === undefined ? undefined : getToolUiResourceUri(found);
}

/** The view of `listed` is linked as `uri` in every link key, and reads back intact under it. */
async function expectView(listed: Listed, tool: string, uri: string): Promise<void> {
  const meta = listed.tools.find((t) => t.name === tool)?._meta;
  expect(meta).toEqual({
    ui: { resourceUri: uri, visibility: ['model', 'app'] },
    'ui/resourceUri': uri,
    'openai/outputTemplate': uri,
  });
  expect(linkOf(listed, tool)).toBe(uri);
  const entry = listed.resources.find((r) => r.uri === uri);
  expect(entry).toMatchObject({ mimeType: APP_MIME, _meta: LIST_META });
  const contents = await listed.read(uri);
  expect(contents).toEqual([{ uri, mimeType: APP_MIME, text: VIEW_HTML, _meta: READ_META }]);
}

describe('prefix always', () => {
  for (const era of ERAS) {
    it(`apps:prefix-always — links and UI resources are ui://<source>__…, listed and read back with HTML, MIME type and _meta.ui intact, on a 2026 and a 2025 upstream (${era} client)`, async () => {
      const listed = await connect(always.key, era);
      try {
        await expectView(listed, 'wx__show_weather', 'ui://wx__weather/view.html');
        await expectView(listed, 'wxl__show_weather', 'ui://wxl__weather/view.html');
        // An unlisted UI resource behind a ui:// template: its link reads back through the template.
        for (const source of ['wx', 'wxl']) {
          const page = `ui://${source}__weather/pages/daily.html`;
          expect(listed.tools.find((t) => t.name === `${source}__show_page`)?._meta).toEqual({
            ui: { resourceUri: page, visibility: ['app'] },
          });
          expect(listed.templates.map((t) => t.uriTemplate)).toContain(
            `ui://${source}__weather/pages/{page}`,
          );
          expect(await listed.read(page)).toEqual([
            { uri: page, mimeType: APP_MIME, text: pageHtml('daily.html') },
          ]);
        }
        // The agw:// spelling of the same resource keeps working, and answers in the form asked.
        const encoded = `agw://wx/${encodeURIComponent('ui://weather/view.html')}`;
        expect((await listed.read(encoded))[0]?.text).toBe(VIEW_HTML);
      } finally {
        await listed.close();
      }
    });
  }
});

describe('prefix never', () => {
  for (const era of ERAS) {
    it(`apps:prefix-never — links and UI resources keep the upstream's own ui:// URIs, and read back intact (${era} client)`, async () => {
      const listed = await connect(never.key, era);
      try {
        await expectView(listed, 'show_weather', 'ui://weather/view.html');
        expect(listed.tools.find((t) => t.name === 'show_page')?._meta).toEqual({
          ui: { resourceUri: 'ui://weather/pages/daily.html', visibility: ['app'] },
        });
        expect(listed.templates.map((t) => t.uriTemplate)).toContain('ui://weather/pages/{page}');
        expect(await listed.read('ui://weather/pages/daily.html')).toEqual([
          { uri: 'ui://weather/pages/daily.html', mimeType: APP_MIME, text: pageHtml('daily.html') },
        ]);
      } finally {
        await listed.close();
      }
    });
  }
});

describe('odd characters and collisions', () => {
  it("apps:odd-uri — an upstream ui:// URI spelt like the gateway's form is never exposed bare (it would name another source's resource); its namespaced form reads it, verbatim", async () => {
    const listed = await connect(never.key, 'modern');
    try {
      // `ui://wx__odd/…` of source wxn would read as source wx's `ui://odd/…`: it is left out bare.
      expect(listed.resources.map((r) => r.uri)).not.toContain(ODD_URI);
    } finally {
      await listed.close();
    }
    const both = await connect(autoOne.key, 'modern');
    try {
      const canonical = `ui://wxa__${ODD_URI.slice('ui://'.length)}`;
      expect(canonical).toBe('ui://wxa__wx__odd/a%20b/c__d.html?v=1');
      expect(both.resources.map((r) => r.uri)).toContain(canonical);
      expect(both.resources.find((r) => r.uri === canonical)?.name).toBe('wxa__odd-view');
      expect(await both.read(canonical)).toEqual([{ uri: canonical, mimeType: APP_MIME, text: ODD_HTML }]);
      // The bare spelling reads as source wx's, which this key cannot see: not found, like any other.
      const bare = await rpcCall(h.url, autoOne.key, 'resources/read', { uri: ODD_URI });
      expect(bare.error?.message).toBe(`Resource not found: ${ODD_URI}`);
    } finally {
      await both.close();
    }
  });

  it('apps:auto-collision — under auto, a ui:// URI two visible sources claim is namespaced for both (links included); one source alone keeps it bare', async () => {
    for (const era of ERAS) {
      const two = await connect(autoTwo.key, era);
      try {
        await expectView(two, 'wxa__show_weather', 'ui://wxa__weather/view.html');
        await expectView(two, 'wxb__show_weather', 'ui://wxb__weather/view.html');
        // The unlisted page both link to collides too: each link names its own source's page.
        expect(linkOf(two, 'wxa__show_page')).toBe('ui://wxa__weather/pages/daily.html');
        expect(linkOf(two, 'wxb__show_page')).toBe('ui://wxb__weather/pages/daily.html');
        expect(two.resources.map((r) => r.uri)).not.toContain('ui://weather/view.html');
      } finally {
        await two.close();
      }
      const one = await connect(autoOne.key, era);
      try {
        await expectView(one, 'show_weather', 'ui://weather/view.html');
        expect(linkOf(one, 'show_page')).toBe('ui://weather/pages/daily.html');
        expect((await one.read('ui://weather/pages/daily.html'))[0]?.text).toBe(pageHtml('daily.html'));
      } finally {
        await one.close();
      }
    }
  });
});

describe('visibility', () => {
  it('apps:not-visible — a key that cannot see the source reads its ui:// URI (either spelling) exactly like one no source has', async () => {
    const unseen = 'ui://wx__weather/view.html';
    const missing = 'ui://nosuch__weather/view.html';
    const seen = await rpcCall(h.url, always.key, 'resources/read', { uri: unseen });
    expect((seen.result?.['contents'] as { text?: string }[])[0]?.text).toBe(VIEW_HTML);
    const denied = await rpcCall(h.url, other.key, 'resources/read', { uri: unseen });
    const absent = await rpcCall(h.url, other.key, 'resources/read', { uri: missing });
    expect(denied.error).toEqual({ code: absent.error?.code, message: `Resource not found: ${unseen}` });
    expect(absent.error?.message).toBe(`Resource not found: ${missing}`);
    // The key's tools and lists say nothing of it either.
    const listed = await connect(other.key, 'modern');
    try {
      expect(JSON.stringify([listed.tools, listed.resources, listed.templates])).not.toContain('ui://wx__');
    } finally {
      await listed.close();
    }
  });
});

describe('client capability', () => {
  const uiOf = (body: unknown, path: 'meta' | 'initialize') => {
    const params = (body as { params?: Record<string, unknown> }).params ?? {};
    const caps =
      path === 'initialize'
        ? params['capabilities']
        : (params['_meta'] as Record<string, unknown> | undefined)?.[
            'io.modelcontextprotocol/clientCapabilities'
          ];
    return caps as Record<string, unknown> | undefined;
  };
  const lastCall = () =>
    modern.log.filter((r) => r.rpcMethod === 'tools/call' && r.name === 'show_weather').at(-1)?.body;

  it("apps:capability-forwarded — a 2026 client's own ui extension (and nothing else it declares) reaches a 2026 upstream; a 2025 client's, which the stateless face cannot keep, is declared for it; a 2025 upstream's sessions declare it", async () => {
    const modernMeta = (capabilities: Record<string, unknown>) => ({
      ...MODERN_META,
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    });
    // 2026 client with the extension: relayed as it declared it.
    const declared = { extensions: { [UI]: { mimeTypes: [APP_MIME, 'text/x-other'] } } };
    const withUi = await rpcCall(h.url, always.key, 'tools/call', {
      name: 'wx__show_weather',
      arguments: {},
      _meta: modernMeta(declared),
    });
    expect(withUi.error).toBeUndefined();
    expect(uiOf(lastCall(), 'meta')).toEqual(declared);
    // 2026 client without it: the upstream hears none (it is the client's own, not the gateway's).
    await rpcCall(h.url, always.key, 'tools/call', { name: 'wx__show_weather', arguments: {} });
    expect(uiOf(lastCall(), 'meta')).toEqual({});
    // 2025 clients (v1 and v2 SDK, declaring it in initialize): the upstream hears the extension only.
    for (const sdk of ['v1', 'v2'] as const) {
      await rpcCall(h.url, always.key, 'tools/call', { name: 'wx__show_weather', arguments: {} });
      expect(uiOf(lastCall(), 'meta')).toEqual({});
      expect(await legacyToolsCall(always.key, 'wx__show_weather', sdk)).toContain('sunny');
      expect(uiOf(lastCall(), 'meta')).toEqual({ extensions: { [UI]: { mimeTypes: [APP_MIME] } } });
    }
    // A 2025 upstream: every session the gateway opened on it (pooled, and a 2025 caller's own)
    // declared the extension in initialize.
    await legacyToolsCall(always.key, 'wxl__show_weather', 'v1');
    await rpcCall(h.url, always.key, 'tools/call', {
      name: 'wxl__show_weather',
      arguments: {},
      _meta: modernMeta(declared),
    });
    const inits = legacy.log.filter((r) => r.rpcMethod === 'initialize');
    expect(inits.length).toBeGreaterThan(0);
    for (const init of inits)
      expect(uiOf(init.body, 'initialize')?.['extensions']).toEqual({ [UI]: { mimeTypes: [APP_MIME] } });
  });
});

/** A tools/call from a 2025 client (the v1 SDK, or the v2 SDK in legacy mode) declaring MCP Apps;
 * the content it got, as JSON. */
async function legacyToolsCall(key: string, name: string, sdk: 'v1' | 'v2'): Promise<string> {
  const url = new URL(`${h.url}/mcp`);
  const requestInit = { headers: { authorization: `Bearer ${key}` } };
  if (sdk === 'v1') {
    const client = new LegacyClient(
      { name: 'apps-host-v1', version: '1.0.0' },
      { capabilities: uiCapability },
    );
    await client.connect(new LegacyTransport(url, { requestInit }));
    try {
      return JSON.stringify((await client.callTool({ name, arguments: {} })).content);
    } finally {
      await client.close();
    }
  }
  const client = new Client(
    { name: 'apps-host', version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' }, capabilities: uiCapability },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  try {
    return JSON.stringify((await client.callTool({ name, arguments: {} })).content);
  } finally {
    await client.close();
  }
}
