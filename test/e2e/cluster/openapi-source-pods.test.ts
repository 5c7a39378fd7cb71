// OpenAPI sources as real pods (issue 44): the chart on the node, the REST API fixture
// (test/fixtures/upstreams/rest-api-server.ts, its own source in a ConfigMap, run by the gateway
// image's Node with type stripping) as a pod behind a Service, and an McpSource `transport: openapi`
// whose document is the fixture's own (fetched from the pod: its servers name the Service) plus one
// operation whose body only multipart can carry, from a ConfigMap. `kubectl describe` shows the
// operation and tool counts and the skipped operation with its reason; the SDK clients of both eras
// list the tools through every gateway pod and call a GET and a POST that reach the API; a read key's
// POST is refused before the API sees it; a changed ConfigMap adds a tool the pods then serve.
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  allPodsReady,
  helmOk,
  images,
  kubectlOk,
  mode,
  podReady,
  pods,
  serviceUrl,
  waitFor,
} from './cluster-context.js';
import { openApiDocument } from '../../fixtures/upstreams/rest-api-server.js';
import { issuedKey } from './cluster-fixtures.js';

const CHART = 'charts/agent-gateway';
const NS = 'agw-openapi';
const REST = 'rest-api';
/** Where the gateway pods reach the fixture: its Service. */
const REST_ORIGIN = `http://${REST}.${NS}.svc:8080`;
const gatewayRepo = () => images().gateway.replace(/:[^:/]+$/, '');
const gatewayTag = () => /:([^:/]+)$/.exec(images().gateway)?.[1] ?? '0.1.0';
const tagArgs = () => (gatewayTag() === '0.1.0' ? [] : ['--set', `image.tag=${gatewayTag()}`]);

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The fixture started on all addresses, each request it receives printed as `REQ <method> <url>`. */
const SERVE = `import { startRestApi } from './rest-api-server.mts';
const api = await startRestApi({ host: '0.0.0.0', port: 8080, origin: ${JSON.stringify(REST_ORIGIN)} });
let seen = 0;
setInterval(() => {
  for (; seen < api.log.length; seen++) process.stdout.write('REQ ' + api.log[seen].method + ' ' + api.log[seen].rawUrl + '\\n');
}, 50);
process.stdout.write('REST API fixture at ' + api.url + '\\n');
`;

const MULTIPART_ONLY = {
  post: {
    operationId: 'uploadPhoto',
    summary: 'Uploads a photo',
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } },
        },
      },
    },
    responses: { '201': { description: 'stored' } },
  },
};

/** Added by the ConfigMap change: served by the fixture's echo route (anything under /v1/echo/). */
const ECHO_AGAIN = {
  get: {
    operationId: 'echoAgain',
    summary: 'Answers what arrived, again',
    parameters: [{ name: 'segment', in: 'path', required: true, schema: { type: 'string' } }],
    responses: { '200': { description: 'what arrived' } },
  },
};

const json = (value: unknown) => JSON.stringify(value);

async function apply(items: readonly unknown[]): Promise<void> {
  await kubectlOk(['-n', NS, 'apply', '-f', '-'], json({ apiVersion: 'v1', kind: 'List', items }));
}

function documentConfigMap(document: Obj): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'rest-openapi' },
    data: { 'openapi.json': json(document) },
  };
}

/** The fixture as a pod of the gateway image (Node 24 runs the .mts source as it is). */
async function deployRestApi(): Promise<void> {
  const labels = { app: REST };
  await apply([
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${REST}-source` },
      data: {
        'rest-api-server.mts': await readFile('test/fixtures/upstreams/rest-api-server.ts', 'utf8'),
        'serve.mts': SERVE,
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: REST },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: REST,
                image: images().gateway,
                imagePullPolicy: 'IfNotPresent',
                command: ['/usr/local/bin/node', '--no-warnings', '/fixture/serve.mts'],
                ports: [{ containerPort: 8080 }],
                readinessProbe: { httpGet: { path: '/openapi.json', port: 8080 }, periodSeconds: 2 },
                volumeMounts: [{ name: 'source', mountPath: '/fixture', readOnly: true }],
              },
            ],
            volumes: [{ name: 'source', configMap: { name: `${REST}-source` } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: REST },
      spec: { selector: labels, ports: [{ port: 8080, targetPort: 8080 }] },
    },
  ]);
  await kubectlOk(['-n', NS, 'rollout', 'status', `deployment/${REST}`, '--timeout=180s']);
}

/** What the fixture has received so far, from its pod's log. */
async function restRequests(): Promise<string[]> {
  const log = await kubectlOk(['-n', NS, 'logs', `deployment/${REST}`]);
  return log.split('\n').filter((line) => line.startsWith('REQ '));
}

/**
 * Each gateway pod's own URL on the node (this machine routes to pod addresses), so a check covers
 * every replica; on kind only the Service is reachable from here.
 */
async function gatewayUrls(): Promise<string[]> {
  if (mode() !== 'node') return [await serviceUrl(NS, 'agw-agent-gateway')];
  const selector = JSON.parse(
    await kubectlOk(['-n', NS, 'get', 'service', 'agw-agent-gateway', '-o', 'jsonpath={.spec.selector}']),
  ) as Record<string, string>;
  const list = (
    await pods(
      NS,
      Object.entries(selector)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    )
  ).filter(podReady);
  const port = (
    await kubectlOk([
      '-n',
      NS,
      'get',
      'service',
      'agw-agent-gateway',
      '-o',
      'jsonpath={.spec.ports[0].targetPort}',
    ])
  ).trim();
  const number = /^\d+$/.test(port) ? port : '8080';
  return list.map((pod) => `http://${pod.status.podIP}:${number}`);
}

async function modern(gateway: string, key: string): Promise<Client> {
  const client = new Client(
    { name: 'cluster-openapi', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

async function legacy(gateway: string, key: string): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'cluster-openapi-legacy', version: '1.0.0' });
  await client.connect(
    new LegacyTransport(new URL(`${gateway}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

async function toolNames(gateway: string, key: string): Promise<string[]> {
  const client = await modern(gateway, key);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/** Waits until every gateway pod lists `name` to `key`. */
async function listedEverywhere(name: string, key: string, timeoutMs: number): Promise<void> {
  const urls = await gatewayUrls();
  // The chart's two gateway replicas, each asked itself on the node; the Service on kind.
  expect(urls).toHaveLength(mode() === 'node' ? 2 : 1);
  const t0 = Date.now();
  for (const url of urls)
    await waitFor(`${name} listed by ${url}`, timeoutMs, async () =>
      (await toolNames(url, key)).includes(name) ? true : undefined,
    );
  process.stdout.write(`[cluster] ${name} listed by ${urls.length} gateway(s) after ${Date.now() - t0} ms\n`);
}

interface CallResult {
  isError?: boolean;
  content?: { type: string; text?: string }[];
  structuredContent?: Obj;
}

const textOf = (result: CallResult) => (result.content ?? []).map((c) => c.text ?? '').join('\n');

describe('McpSource transport openapi on a node', () => {
  it('openapi:pods-configmap — a REST API whose OpenAPI document is in a ConfigMap is served by the gateway pods: kubectl describe shows the operation count and the skipped operation with its reason; both SDK eras list its tools and call a GET and a POST that reach the API; a read key cannot call the POST; a changed ConfigMap adds a tool the pods serve', async () => {
    await kubectlOk(['create', 'namespace', NS]);
    await helmOk([
      'install',
      'agw',
      CHART,
      '-n',
      NS,
      '--set',
      `image.repository=${gatewayRepo()}`,
      ...tagArgs(),
      '--wait',
      '--timeout',
      '240s',
    ]);
    await allPodsReady(NS, 4, 240_000);
    await deployRestApi();

    // The fixture's own document (its servers name the Service), plus an operation whose body only
    // multipart can carry. The pod serves the same document; a Service just rolled out can take a
    // moment to be routed from this machine, so the look at it is retried.
    const document = openApiDocument(REST_ORIGIN);
    const restUrl = await serviceUrl(NS, REST);
    const served = await waitFor(`${restUrl}/openapi.json`, 60_000, async () => {
      const response = await fetch(`${restUrl}/openapi.json`, { signal: AbortSignal.timeout(10_000) });
      return response.ok ? ((await response.json()) as Obj) : undefined;
    });
    expect(served).toEqual(document);
    expect(document['servers']).toEqual([{ url: `${REST_ORIGIN}/v1` }]);
    const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    const fixtureOperations = Object.values(document['paths'] as Obj).reduce(
      (n: number, item) => n + Object.keys(item as Obj).filter((k) => METHODS.includes(k)).length,
      0,
    );
    expect(fixtureOperations).toBe(9);
    const initial = { ...document, paths: { ...(document['paths'] as Obj), '/photos': MULTIPART_ONLY } };

    // The README's Workspace and read key, a write key, the document's ConfigMap, the source.
    await kubectlOk([
      '-n',
      NS,
      'apply',
      '-f',
      'examples/kubernetes/workspace.yaml',
      '-f',
      'examples/kubernetes/apikey.yaml',
    ]);
    await apply([
      {
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'ApiKey',
        metadata: { name: 'ci-writer' },
        spec: { workspaceRef: { name: 'acme' }, access: 'write', sources: ['*'], tools: ['*'] },
      },
      documentConfigMap(initial),
      {
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'McpSource',
        metadata: { name: 'rest' },
        spec: {
          workspaceRef: { name: 'acme' },
          transport: 'openapi',
          openapi: { document: { configMapKeyRef: { name: 'rest-openapi', key: 'openapi.json' } } },
        },
      },
    ]);
    await kubectlOk([
      '-n',
      NS,
      'wait',
      '--for=condition=Ready',
      '--timeout=120s',
      'workspace/acme',
      'apikey/ci-reader',
      'apikey/ci-writer',
      'mcpsource/rest',
    ]);

    // kubectl describe: the counts, the skipped operation with its reason, the condition.
    const described = await kubectlOk(['-n', NS, 'describe', 'mcpsource', 'rest']);
    process.stdout.write(`[cluster] kubectl describe mcpsource rest:\n${described}\n`);
    expect(described).toMatch(/Operations:\s+10\b/);
    expect(described).toMatch(/Tools:\s+9\b/);
    expect(described).toMatch(/Skipped Count:\s+1\b/);
    expect(described).toContain('POST /photos (uploadPhoto)');
    expect(described).toContain(
      'its request body is only "multipart/form-data", which calls do not send (JSON, form or plain text)',
    );
    expect(described).toMatch(/DocumentAccepted/);
    expect(described).toContain('9 tools from 10 operations; 1 skipped');

    const reader = await issuedKey(NS, 'ci-reader');
    const writer = await issuedKey(NS, 'ci-writer');
    await listedEverywhere('rest__listItems', writer, 180_000);

    const gateway = await serviceUrl(NS, 'agw-agent-gateway');
    const client = await modern(gateway, writer);
    const old = await legacy(gateway, writer);
    const readClient = await modern(gateway, reader);
    const oldReader = await legacy(gateway, reader);
    try {
      // Listing, both eras: one tool per operation but the skipped one, read-only hints by method.
      const tools = (await client.listTools()).tools;
      const names = tools.map((t) => t.name).sort();
      expect(names.filter((n) => n.startsWith('rest__'))).toEqual(
        [
          'addNote',
          'big',
          'broken',
          'createItem',
          'deleteItem',
          'echo',
          'getItem',
          'listItems',
          'private',
        ].map((n) => `rest__${n}`),
      );
      expect(tools.find((t) => t.name === 'rest__listItems')?.annotations?.readOnlyHint).toBe(true);
      expect(tools.find((t) => t.name === 'rest__createItem')?.annotations?.readOnlyHint).toBe(false);
      const legacyNames = (await old.listTools()).tools.map((t) => t.name);
      expect(legacyNames).toEqual(expect.arrayContaining(['rest__listItems', 'rest__createItem']));
      expect(legacyNames).not.toContain('rest__uploadPhoto');
      const readerNames = (await oldReader.listTools()).tools.map((t) => t.name);
      expect(readerNames).toContain('rest__listItems');
      expect(readerNames).not.toContain('rest__createItem');

      // A GET and a POST through the gateway pods, answered by the fixture.
      const listed = (await client.callTool({ name: 'rest__listItems', arguments: {} })) as CallResult;
      expect(listed.isError ?? false).toBe(false);
      expect(listed.structuredContent).toEqual({
        result: [
          { id: 'a1', name: 'first', tags: ['red'] },
          { id: 'b2', name: 'second', tags: ['blue'] },
        ],
      });
      const created = (await client.callTool({
        name: 'rest__createItem',
        arguments: { body: { name: 'from a pod', tags: ['pods'] } },
      })) as CallResult;
      expect(created.isError ?? false).toBe(false);
      expect(created.structuredContent).toMatchObject({ name: 'from a pod', tags: ['pods'] });
      const createdId = (created.structuredContent as { id: string }).id;
      // The 2025 era: a POST and a GET that reads both writes back.
      const createdOld = (await old.callTool({
        name: 'rest__createItem',
        arguments: { body: { name: 'from the 2025 era' } },
      })) as CallResult;
      expect(createdOld.isError ?? false).toBe(false);
      const fetched = (await old.callTool({
        name: 'rest__getItem',
        arguments: { id: createdId },
      })) as CallResult;
      expect(fetched.structuredContent).toEqual({ id: createdId, name: 'from a pod', tags: ['pods'] });
      expect(JSON.parse(textOf(fetched))).toEqual(fetched.structuredContent);
      const filtered = (await old.callTool({
        name: 'rest__listItems',
        arguments: { tag: ['pods', 'blue'] },
      })) as CallResult;
      expect(
        ((filtered.structuredContent as { result: { name: string }[] }).result ?? []).map((i) => i.name),
      ).toEqual(['second', 'from a pod']);
      const posts = await waitFor('the two POSTs in the fixture log', 30_000, async () => {
        const seen = (await restRequests()).filter((line) => line.startsWith('REQ POST '));
        return seen.length === 2 ? seen : undefined;
      });
      expect(posts).toEqual(['REQ POST /v1/items', 'REQ POST /v1/items']);
      expect(await restRequests()).toContain('REQ GET /v1/items?tag=pods&tag=blue');

      // The read key: the POST is refused by the gateway, and nothing reaches the API.
      const refused = await readClient
        .callTool({ name: 'rest__createItem', arguments: { body: { name: 'read key' } } })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(ProtocolError);
      expect((refused as Error).message).toMatch(/rest__createItem needs an API key with write access/);
      await expect(
        oldReader.callTool({ name: 'rest__createItem', arguments: { body: { name: 'read key, 2025' } } }),
      ).rejects.toThrow(/needs an API key with write access/);
      const readerList = (await readClient.callTool({
        name: 'rest__listItems',
        arguments: {},
      })) as CallResult;
      expect(textOf(readerList)).toContain('from a pod');
      expect(textOf(readerList)).not.toContain('read key');
      await sleep(1_000);
      expect((await restRequests()).filter((line) => line.startsWith('REQ POST '))).toHaveLength(2);
    } finally {
      await Promise.all([client, old, readClient, oldReader].map((c) => c.close().catch(() => undefined)));
    }

    // A changed ConfigMap: one operation more, re-rendered by the operator, served by the pods.
    await apply([
      documentConfigMap({
        ...initial,
        paths: { ...(initial['paths'] as Obj), '/echo/{segment}/again': ECHO_AGAIN },
      }),
    ]);
    await waitFor('status.openapi.operations at 11', 120_000, async () => {
      const source = JSON.parse(await kubectlOk(['-n', NS, 'get', 'mcpsource', 'rest', '-o', 'json'])) as Obj;
      return source['status']?.openapi?.operations === 11 && source['status']?.openapi?.tools === 10
        ? true
        : undefined;
    });
    expect(await kubectlOk(['-n', NS, 'describe', 'mcpsource', 'rest'])).toContain(
      '10 tools from 11 operations; 1 skipped',
    );
    await listedEverywhere('rest__echoAgain', reader, 180_000);
    const again = await modern(gateway, reader);
    try {
      const echoed = (await again.callTool({
        name: 'rest__echoAgain',
        arguments: { segment: 'pods' },
      })) as CallResult;
      expect(echoed.isError ?? false).toBe(false);
      expect(echoed.structuredContent).toMatchObject({ rawUrl: '/v1/echo/pods/again' });
    } finally {
      await again.close();
    }
    expect(await restRequests()).toContain('REQ GET /v1/echo/pods/again');

    await kubectlOk([
      '-n',
      NS,
      'delete',
      'mcpsource/rest',
      'apikey/ci-writer',
      'apikey/ci-reader',
      'workspace/acme',
      '--wait=true',
      '--timeout=60s',
    ]);
    await helmOk(['uninstall', 'agw', '-n', NS, '--wait', '--timeout', '120s']);
    await kubectlOk(['delete', 'namespace', NS, '--wait=true', '--timeout=120s']);
  });
});
