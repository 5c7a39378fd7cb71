// McpSource transport openapi on a real kube-apiserver + etcd (issue 44): the operator reads a
// document from a ConfigMap of the source's namespace, renders it inline into the gateway config
// (checked with the gateway's own McpSourceSchema), and `kubectl describe` shows what it holds:
// tools, operations, skipped operations with their reasons, a DocumentAccepted condition. A changed
// ConfigMap re-renders; a missing ConfigMap, a hostile document and one too large for the config are
// refused with the reason; a ConfigMap of another namespace cannot be named; a url document is left
// to the gateways; the CRD's CEL rules refuse a half-given spec.openapi; a resync writes nothing.
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_POLICY, McpSourceSchema } from '../../gateway/config/index.js';
import { FRAGMENT_KEY } from '../../gateway/config/kube/index.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { ApiKubeWriter, type KubeWriter } from '../../operator/kube/kube-writer.js';
import { runOperator, type RunningOperator } from '../../operator/operator-main.js';
import {
  customResource,
  freshNamespace,
  kubeConfig,
  kubectl,
  kubectlOk,
  renderedConfigMaps,
} from '../support/kube-harness.js';
import { until } from '../support/until.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PETSTORE = 'node_modules/@readme/oas-examples/3.0/json/petstore.json';
const workspace = `oa-${randomBytes(3).toString('hex')}`;
let namespace: string;
let other: string;
let petstore: string;
let operator: RunningOperator | undefined;
let writes = 0;

function countingWriter(inner: KubeWriter): KubeWriter {
  const count =
    <A extends unknown[]>(write: (...args: A) => Promise<void>) =>
    (...args: A) => {
      writes += 1;
      return write(...args);
    };
  return {
    apply: count((o) => inner.apply(o)),
    remove: count((k, n, name) => inner.remove(k, n, name)),
    applyWorkload: count((o) => inner.applyWorkload(o)),
    removeWorkload: count((k, n, name) => inner.removeWorkload(k, n, name)),
    patchStatus: count((p, n, name, s) => inner.patchStatus(p, n, name, s)),
  };
}

/** A small API: one JSON operation, one whose body only multipart can carry, and `extra` more. */
function shopDocument(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Shop', version: '1.0' },
    servers: [{ url: 'https://shop.example.com/api' }],
    paths: {
      '/items': { get: { operationId: 'listItems', responses: { '200': { description: 'ok' } } } },
      '/upload': {
        post: {
          operationId: 'uploadPhoto',
          requestBody: {
            required: true,
            content: { 'multipart/form-data': { schema: { type: 'object' } } },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
      ...extra,
    },
  });
}

/** A document past the operation bound and larger than a rendered part holds. */
function hugeDocument(): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'huge', version: '1' },
    paths: Object.fromEntries(
      Array.from({ length: 2500 }, (_, i) => [
        `/operation-number-${i}`,
        {
          get: {
            operationId: `operationNumber${i}`,
            description: `Reads the resource number ${i} with every field it has, as stored, without paging.`,
            responses: { '200': { description: 'ok' } },
          },
        },
      ]),
    ),
  });
}

const HOSTILE = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'hostile', version: '1' },
  paths: {
    '/a': {
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: 'file:///etc/passwd' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
});

/** Server-side apply: a client-side one copies a large document into an annotation (256 KiB cap). */
async function apply(ns: string, items: readonly Record<string, unknown>[]): Promise<void> {
  await kubectlOk(
    ['apply', '--server-side', '--force-conflicts', '-n', ns, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
  );
}

function configMap(name: string, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

function openApiSource(name: string, document: Record<string, unknown>, extra: Obj = {}): Obj {
  return customResource('McpSource', name, {
    workspaceRef: { name: workspace },
    transport: 'openapi',
    openapi: { document },
    ...extra,
  });
}

async function mcpSource(name: string): Promise<Obj> {
  return JSON.parse(await kubectlOk(['get', 'mcpsource', name, '-n', namespace, '-o', 'json'])) as Obj;
}

function condition(source: Obj, type: string): Obj | undefined {
  return (source['status']?.conditions as Obj[] | undefined)?.find((c) => c['type'] === type);
}

/** Waits until the source's Ready condition has `reason`, and returns the source. */
function untilReason(name: string, reason: string): Promise<Obj> {
  return until(`mcpsource ${name} Ready reason ${reason}`, async () => {
    const source = await mcpSource(name);
    return condition(source, 'Ready')?.['reason'] === reason ? source : undefined;
  });
}

/** The rendered McpSource entries of the workspace, as the gateways load them. */
async function renderedSources(): Promise<Obj[]> {
  const parts = await renderedConfigMaps(namespace, workspace);
  return parts.flatMap(
    (part) => ((JSON.parse(part.data[FRAGMENT_KEY] ?? '{}') as Obj)['mcpSources'] as Obj[] | undefined) ?? [],
  );
}

beforeAll(async () => {
  namespace = await freshNamespace('oa');
  other = await freshNamespace('oa-other');
  petstore = await readFile(PETSTORE, 'utf8');
  await apply(other, [configMap('foreign', { 'openapi.json': shopDocument() })]);
  await apply(namespace, [
    configMap('petstore', { 'openapi.json': petstore }),
    configMap('shop', { 'openapi.json': shopDocument() }),
    configMap('huge', { 'openapi.json': hugeDocument() }),
    customResource('Workspace', workspace, {}),
    openApiSource('petstore', { configMapKeyRef: { name: 'petstore', key: 'openapi.json' } }),
    openApiSource('shop', { configMapKeyRef: { name: 'shop', key: 'openapi.json' } }),
    openApiSource('missing', { configMapKeyRef: { name: 'not-there', key: 'openapi.json' } }),
    openApiSource('nokey', { configMapKeyRef: { name: 'shop', key: 'openapi.yaml' } }),
    openApiSource('hostile', { inline: HOSTILE }),
    openApiSource('huge', { configMapKeyRef: { name: 'huge', key: 'openapi.json' } }),
    openApiSource('foreign', { configMapKeyRef: { name: 'foreign', key: 'openapi.json' } }),
    openApiSource('byurl', { url: 'https://api.example.com/openapi.json' }),
  ]);
  operator = runOperator({
    kubeConfig: kubeConfig(),
    gatewayNamespace: namespace,
    watchNamespace: namespace,
    policy: DEFAULT_TENANT_POLICY,
    // A public address for every name: the policy allows it and nothing is looked up.
    resolver: () => Promise.resolve(['93.184.215.14']),
    logger: createPinoLogger({ level: 'silent' }),
    writer: countingWriter(new ApiKubeWriter(kubeConfig())),
    // No resync during the test: a re-render can only come from the ConfigMap watch.
    resyncMs: 600_000,
  });
}, 60_000);

afterAll(async () => {
  await operator?.stop();
});

describe('McpSource transport openapi (operator)', () => {
  it('openapi:crd-configmap-rendered — a Petstore document in a ConfigMap is rendered inline into the gateway config, which the gateway contract accepts', async () => {
    const source = await untilReason('petstore', 'Rendered');
    expect(condition(source, 'Ready')?.['status']).toBe('True');
    const rendered = await until('the petstore source rendered', async () =>
      (await renderedSources()).find((s) => s['name'] === 'petstore'),
    );
    expect(rendered['transport']).toBe('openapi');
    expect(rendered['openapi']).toEqual({ document: { inline: petstore } });
    const parsed = McpSourceSchema.parse(rendered);
    expect(parsed.openapi?.document).toEqual({ inline: petstore });
    // Only the sources that are Ready are rendered.
    expect((await renderedSources()).map((s) => s['name'] as string).sort()).toEqual([
      'byurl',
      'petstore',
      'shop',
    ]);
  });

  it('openapi:crd-status — status shows the tool and operation counts and each skipped operation with its reason; kubectl describe shows them', async () => {
    const pets = await untilReason('petstore', 'Rendered');
    expect(pets['status'].openapi).toEqual({
      document: 'configMapKeyRef',
      operations: 20,
      tools: 19,
      skippedCount: 1,
      skipped: [
        {
          operation: 'POST /pet/{petId}/uploadImage (uploadFile)',
          reason:
            'its request body is only "multipart/form-data", which calls do not send (JSON, form or plain text)',
        },
      ],
      title: 'Swagger Petstore',
      version: '1.0.0',
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown,
    });
    expect(condition(pets, 'DocumentAccepted')).toMatchObject({
      status: 'True',
      reason: 'DocumentRead',
      message: '19 tools from 20 operations; 1 skipped (status.openapi.skipped)',
    });
    const shop = await untilReason('shop', 'Rendered');
    expect(shop['status'].openapi).toMatchObject({
      operations: 2,
      tools: 1,
      skippedCount: 1,
      skipped: [
        {
          operation: 'POST /upload (uploadPhoto)',
          reason: expect.stringMatching(/^its request body is only "multipart\/form-data"/) as unknown,
        },
      ],
    });
    const described = await kubectlOk(['describe', 'mcpsource', 'shop', '-n', namespace]);
    expect(described).toMatch(/Tools:\s+1/);
    expect(described).toMatch(/Operations:\s+2/);
    expect(described).toContain('POST /upload (uploadPhoto)');
    expect(described).toContain('its request body is only "multipart/form-data"');
    expect(described).toContain('DocumentAccepted');
  });

  it('openapi:crd-configmap-change — a changed ConfigMap re-renders the source and its status', async () => {
    await untilReason('shop', 'Rendered');
    const changed = shopDocument({
      '/items/{id}': {
        delete: {
          operationId: 'deleteItem',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '204': { description: 'gone' } },
        },
      },
    });
    await apply(namespace, [configMap('shop', { 'openapi.json': changed })]);
    const shop = await until('shop status to show 2 tools', async () => {
      const source = await mcpSource('shop');
      return source['status']?.openapi?.tools === 2 ? source : undefined;
    });
    expect(shop['status'].openapi).toMatchObject({ operations: 3, tools: 2, skippedCount: 1 });
    await until('the changed document rendered', async () =>
      (await renderedSources()).find((s) => s['name'] === 'shop')?.['openapi']?.document?.inline === changed
        ? true
        : undefined,
    );
  });

  it('openapi:crd-refusals — a missing ConfigMap or key, a hostile document and one too large for the config are refused with the reason and not rendered', async () => {
    const missing = await untilReason('missing', 'ConfigMapNotFound');
    expect(condition(missing, 'Ready')).toMatchObject({
      status: 'False',
      message: 'ConfigMap not-there (spec.openapi.document.configMapKeyRef) was not found in this namespace',
    });
    expect(condition(missing, 'DocumentAccepted')).toMatchObject({
      status: 'False',
      reason: 'ConfigMapNotFound',
    });
    expect(missing['status'].openapi).toEqual({ document: 'configMapKeyRef' });
    const nokey = await untilReason('nokey', 'ConfigMapKeyNotFound');
    expect(condition(nokey, 'Ready')?.['message']).toBe(
      'ConfigMap shop has no data key openapi.yaml (spec.openapi.document.configMapKeyRef)',
    );
    const hostile = await untilReason('hostile', 'DocumentRefused');
    expect(condition(hostile, 'Ready')?.['message']).toBe(
      'spec.openapi.document: the document has the external $ref "file:///etc/passwd"; only refs inside the document (#/…) are read',
    );
    expect(condition(hostile, 'DocumentAccepted')).toMatchObject({
      status: 'False',
      reason: 'DocumentRefused',
    });
    const huge = await untilReason('huge', 'DocumentTooLarge');
    expect(condition(huge, 'Ready')?.['message']).toMatch(
      /^spec\.openapi\.document: the source rendered with its document takes \d+ KiB; the gateways' config holds at most 384 KiB per source/,
    );
    const names = (await renderedSources()).map((s) => s['name'] as string);
    for (const refused of ['missing', 'nokey', 'hostile', 'huge']) expect(names).not.toContain(refused);
    // The workspace itself is served: one source too large fails alone.
    const ws = JSON.parse(
      await kubectlOk(['get', 'workspace', workspace, '-n', namespace, '-o', 'json']),
    ) as Obj;
    expect((ws['status'].conditions as Obj[]).find((c) => c['type'] === 'Ready')?.['status']).toBe('True');
  });

  it('openapi:crd-other-namespace — a ConfigMap of another namespace cannot be named: the reference has no namespace, and a same-named one elsewhere is not found', async () => {
    const foreign = await untilReason('foreign', 'ConfigMapNotFound');
    expect(condition(foreign, 'Ready')?.['message']).toBe(
      'ConfigMap foreign (spec.openapi.document.configMapKeyRef) was not found in this namespace',
    );
    const refused = await kubectl(
      ['apply', '-n', namespace, '-f', '-'],
      JSON.stringify(
        openApiSource('crossns', {
          configMapKeyRef: { name: 'foreign', key: 'openapi.json', namespace: other },
        }),
      ),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/unknown field "spec\.openapi\.document\.configMapKeyRef\.namespace"/);
  });

  it('openapi:crd-url-not-fetched — a url document is rendered for the gateways to fetch; the operator reports it does not fetch it', async () => {
    const source = await untilReason('byurl', 'Rendered');
    expect(source['status'].openapi).toEqual({ document: 'url' });
    expect(condition(source, 'DocumentAccepted')).toMatchObject({
      status: 'Unknown',
      reason: 'FetchedByGateways',
    });
    const rendered = (await renderedSources()).find((s) => s['name'] === 'byurl');
    expect(rendered?.['openapi']).toEqual({ document: { url: 'https://api.example.com/openapi.json' } });
  });

  it('openapi:crd-cel — the API server refuses openapi without transport openapi, transport openapi without openapi, and two documents at once', async () => {
    const cases: [Obj, RegExp][] = [
      [
        customResource('McpSource', 'half-a', {
          workspaceRef: { name: workspace },
          transport: 'streamable-http',
          url: 'https://mcp.example.com/mcp',
          openapi: { document: { inline: 'openapi: 3.0.3' } },
        }),
        /openapi is required with transport openapi and used only with it/,
      ],
      [
        customResource('McpSource', 'half-b', { workspaceRef: { name: workspace }, transport: 'openapi' }),
        /openapi is required with transport openapi and used only with it/,
      ],
      [
        openApiSource('two-docs', { inline: 'openapi: 3.0.3', url: 'https://api.example.com/openapi.json' }),
        /give exactly one of url, inline and configMapKeyRef/,
      ],
    ];
    for (const [object, message] of cases) {
      const result = await kubectl(['apply', '-n', namespace, '-f', '-'], JSON.stringify(object));
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(message);
    }
  });

  it('openapi:crd-idempotent — a reconcile with nothing changed (a label added to the ConfigMap re-enqueues the workspace) writes nothing', async () => {
    await until('shop status to show 2 tools', async () =>
      (await mcpSource('shop'))['status']?.openapi?.tools === 2 ? true : undefined,
    );
    await until(
      'writes to settle',
      async () => {
        const before = writes;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await operator?.idle();
        return writes === before ? true : undefined;
      },
      30_000,
    );
    const before = writes;
    await kubectlOk(['label', 'configmap', 'shop', '-n', namespace, 'touched=yes']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await operator?.idle();
    expect(writes).toBe(before);
  });
});
