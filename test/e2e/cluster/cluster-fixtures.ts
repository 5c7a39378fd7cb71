// Objects the pod tests put beside the chart: the demo MCP server (from the gateway image), Redis and
// PostgreSQL as pods with their Secrets, and the README's Workspace, ApiKey and McpSource pointed at
// the demo server. Every pod gets probes, so "all pods Ready" means each one serves.
import { readFile } from 'node:fs/promises';
import { images, kubectlOk } from './cluster-context.js';

const json = (value: unknown) => JSON.stringify(value);

/** `kubectl apply` of a v1 List of `items` in the namespace. */
const applyList = (namespace: string, items: unknown[]) =>
  kubectlOk(['-n', namespace, 'apply', '-f', '-'], json({ apiVersion: 'v1', kind: 'List', items }));

export const DEMO_URL = 'http://demo-mcp:9000/mcp';

export async function deployDemoMcp(namespace: string): Promise<void> {
  const labels = { app: 'demo-mcp' };
  await applyList(namespace, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'demo-mcp' },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'demo-mcp',
                image: images().gateway,
                imagePullPolicy: 'IfNotPresent',
                command: [
                  '/usr/local/bin/node',
                  '/app/dist/examples/demo-mcp-server/main.js',
                  '--http',
                  '9000',
                  '--host',
                  '0.0.0.0',
                ],
                ports: [{ containerPort: 9000 }],
                readinessProbe: { tcpSocket: { port: 9000 }, periodSeconds: 2 },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'demo-mcp' },
      spec: { selector: labels, ports: [{ port: 9000, targetPort: 9000 }] },
    },
  ]);
}

/** Redis and PostgreSQL as pods, and the Secrets the HA values name (agent-gateway-redis, -postgres). */
export async function deployStatefulParts(namespace: string): Promise<void> {
  const password = 'agw-test-only';
  const deployment = (name: string, container: Record<string, unknown>) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, ...container }] } },
    },
  });
  const service = (name: string, port: number) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app: name }, ports: [{ port, targetPort: port }] },
  });
  await applyList(namespace, [
    deployment('agw-redis', {
      image: images().redis,
      imagePullPolicy: 'IfNotPresent',
      ports: [{ containerPort: 6379 }],
      readinessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 2 },
    }),
    service('agw-redis', 6379),
    deployment('agw-postgres', {
      image: images().postgres,
      imagePullPolicy: 'IfNotPresent',
      env: [
        { name: 'POSTGRES_USER', value: 'agw' },
        { name: 'POSTGRES_PASSWORD', value: password },
        { name: 'POSTGRES_DB', value: 'agw' },
      ],
      ports: [{ containerPort: 5432 }],
      readinessProbe: {
        exec: { command: ['pg_isready', '-h', '127.0.0.1', '-U', 'agw'] },
        periodSeconds: 2,
      },
    }),
    service('agw-postgres', 5432),
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'agent-gateway-redis' },
      stringData: { url: 'redis://agw-redis:6379' },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'agent-gateway-postgres' },
      stringData: { url: `postgresql://agw:${password}@agw-postgres:5432/agw` },
    },
  ]);
}

/**
 * The README's three examples, the McpSource's url edited to the demo server (as the README says),
 * applied; resolves once all three are Ready (120 s at most).
 */
export async function applyReadmeResources(namespace: string): Promise<void> {
  const source = (await readFile('examples/kubernetes/mcpsource.yaml', 'utf8')).replace(
    'http://docs-mcp.example.svc:8080/mcp',
    DEMO_URL,
  );
  await kubectlOk([
    '-n',
    namespace,
    'apply',
    '-f',
    'examples/kubernetes/workspace.yaml',
    '-f',
    'examples/kubernetes/apikey.yaml',
  ]);
  await kubectlOk(['-n', namespace, 'apply', '-f', '-'], source);
  await kubectlOk([
    '-n',
    namespace,
    'wait',
    '--for=condition=Ready',
    '--timeout=120s',
    'workspace/acme',
    'apikey/ci-reader',
    'mcpsource/docs',
  ]);
}

/** The key the operator issued for an ApiKey, read the README's way. */
export async function issuedKey(namespace: string, apiKey: string): Promise<string> {
  const secret = (
    await kubectlOk(['-n', namespace, 'get', 'apikey', apiKey, '-o', 'jsonpath={.status.secretName}'])
  ).trim();
  const data = await kubectlOk(['-n', namespace, 'get', 'secret', secret, '-o', 'jsonpath={.data.key}']);
  return Buffer.from(data, 'base64').toString('utf8');
}

export async function createApiKey(
  namespace: string,
  name: string,
  limits?: Record<string, number>,
): Promise<void> {
  await kubectlOk(
    ['-n', namespace, 'apply', '-f', '-'],
    json({
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'ApiKey',
      metadata: { name },
      spec: {
        workspaceRef: { name: 'acme' },
        access: 'read',
        sources: ['*'],
        tools: ['*'],
        ...(limits === undefined ? {} : { limits }),
      },
    }),
  );
}

/** A 2026-07-28 `tools/call` of the demo server's `add` (2 + 3) through a gateway's `/mcp`, under the
 * name the gateway gives it (`docs__add`, `runner__add`): the HTTP status and the answer's text. */
export async function callDemoAdd(
  url: string,
  key: string,
  tool: string,
): Promise<{ status: number; text: string | undefined }> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: json({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: { a: 2, b: 3 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'cluster-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
    signal: AbortSignal.timeout(30_000),
  });
  const answer = JSON.parse(await response.text()) as { result?: { content?: { text?: string }[] } };
  return { status: response.status, text: answer.result?.content?.[0]?.text };
}
