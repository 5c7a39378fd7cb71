// Published MCP servers as McpSource spec.run workloads (issue 40): images of unmodified servers
// from npm and PyPI (test/infra/published-server-images.sh), applied by a tenant with the README's
// Kubernetes steps — the chart with policy.workloads.allowedImages naming their registry, the
// README's Workspace and read-only ApiKey, then three McpSources: server-memory (npm, stdio behind
// the bridge the operator's init container copies in), mcp-server-time (PyPI, stdio) and
// server-everything (npm, Streamable HTTP behind the proxy sidecar, its own entrypoint). The v2 SDK
// client lists and calls their tools through the gateway pods; a write tool is refused to the read
// key and served to a write key.
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { helmOk, images, kubectlOk, allPodsReady, serviceUrl, waitFor } from './cluster-context.js';
import { issuedKey } from './cluster-fixtures.js';

const CHART = 'charts/agent-gateway';
const NS = 'agw-published';
const gatewayRepo = () => images().gateway.replace(/:[^:/]+$/, '');
const gatewayTag = () => /:([^:/]+)$/.exec(images().gateway)?.[1] ?? '0.1.0';
const tagArgs = () => (gatewayTag() === '0.1.0' ? [] : ['--set', `image.tag=${gatewayTag()}`]);

/** The registry prefix (ending in /) of an image, as policy.workloads.allowedImages takes it. */
function registryOf(image: string): string {
  const repo = image.replace(/:[^:/]+$/, '');
  return repo.includes('/') ? repo.slice(0, repo.lastIndexOf('/') + 1) : 'docker.io/library/';
}

function runSource(name: string, run: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'McpSource',
    metadata: { name },
    spec: { workspaceRef: { name: 'acme' }, run },
  };
}

/** The v2 SDK client connected to a gateway's /mcp with an API key. */
async function connect(gateway: string, key: string): Promise<Client> {
  const client = new Client(
    { name: 'cluster-published', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

async function toolNames(gateway: string, key: string): Promise<string[]> {
  const client = await connect(gateway, key);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

function text(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === 'text' ? (first.text ?? '') : '';
}

describe('published MCP servers as McpSource spec.run on a node', () => {
  it('workloads:published-servers — npm and PyPI stdio servers and an HTTP server, built from their published packages, are listed and called through the gateway pods; a write tool still needs a write key', async () => {
    const published = images().published;
    const registries = [
      ...new Set([
        registryOf(published.memory),
        registryOf(published.time),
        registryOf(published.everything),
      ]),
    ];
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
      '--set',
      `policy.workloads.allowedImages={${registries.join(',')}}`,
      '--wait',
      '--timeout',
      '240s',
    ]);
    await allPodsReady(NS, 4, 240_000);
    // The README's steps: the Workspace and the read-only ApiKey; then a write key beside it.
    await kubectlOk([
      '-n',
      NS,
      'apply',
      '-f',
      'examples/kubernetes/workspace.yaml',
      '-f',
      'examples/kubernetes/apikey.yaml',
    ]);
    const writer = {
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'ApiKey',
      metadata: { name: 'ci-writer' },
      spec: { workspaceRef: { name: 'acme' }, access: 'write', sources: ['*'], tools: ['*'] },
    };
    const sources = [
      runSource('memory', {
        image: published.memory,
        transport: 'stdio',
        command: ['mcp-server-memory'],
        // The root file system is read-only; /tmp is the pod's emptyDir.
        env: [{ name: 'MEMORY_FILE_PATH', value: '/tmp/memory.jsonl' }],
      }),
      runSource('time', {
        image: published.time,
        transport: 'stdio',
        command: ['mcp-server-time'],
        args: ['--local-timezone', 'UTC'],
      }),
      // The image's own entrypoint and command (streamableHttp on $PORT, all addresses).
      runSource('everything', { image: published.everything, transport: 'streamable-http', port: 3001 }),
    ];
    await kubectlOk(
      ['-n', NS, 'apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [writer, ...sources] }),
    );
    await kubectlOk([
      '-n',
      NS,
      'wait',
      '--for=condition=Ready',
      '--timeout=120s',
      'workspace/acme',
      'apikey/ci-reader',
      'apikey/ci-writer',
      'mcpsource/memory',
      'mcpsource/time',
      'mcpsource/everything',
    ]);
    for (const name of ['mcp-memory', 'mcp-time', 'mcp-everything'])
      await kubectlOk(['-n', NS, 'rollout', 'status', `deployment/${name}`, '--timeout=180s']);
    const workload = await waitFor('the Workload column at 1/1 for all three', 60_000, async () => {
      const column = (
        await kubectlOk([
          '-n',
          NS,
          'get',
          'mcpsource',
          'memory',
          'time',
          'everything',
          '-o',
          'jsonpath={.items[*].status.workload}',
        ])
      ).trim();
      return column === '1/1 1/1 1/1' ? column : undefined;
    });
    expect(workload).toBe('1/1 1/1 1/1');

    const reader = await issuedKey(NS, 'ci-reader');
    const writerKey = await issuedKey(NS, 'ci-writer');
    const gateway = await serviceUrl(NS, 'agw-agent-gateway');

    // Listed under the namespaced names once every gateway pod has synced the three sources.
    const readNames = await waitFor('the three sources listed through the gateway', 180_000, async () => {
      const names = await toolNames(gateway, reader);
      return ['memory__read_graph', 'time__get_current_time', 'everything__echo'].every((n) =>
        names.includes(n),
      )
        ? names
        : undefined;
    });
    expect(readNames).toEqual(
      expect.arrayContaining([
        'memory__read_graph',
        'memory__search_nodes',
        'time__convert_time',
        'everything__get-sum',
      ]),
    );
    // The read key does not see the write tools (no readOnlyHint: true) at all; the write key does.
    expect(readNames).not.toContain('memory__create_entities');
    expect(readNames).not.toContain('memory__delete_entities');
    const writeNames = await toolNames(gateway, writerKey);
    expect(writeNames).toEqual(expect.arrayContaining(['memory__create_entities', 'memory__read_graph']));

    const client = await connect(gateway, reader);
    try {
      // PyPI over stdio: the real clock of the pod, in the zone asked for.
      const now = Date.now();
      const time = JSON.parse(
        text(
          await client.callTool({ name: 'time__get_current_time', arguments: { timezone: 'Europe/Berlin' } }),
        ),
      ) as { timezone: string; datetime: string };
      expect(time.timezone).toBe('Europe/Berlin');
      expect(time.datetime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]0[12]:00$/);
      expect(Math.abs(Date.parse(time.datetime) - now)).toBeLessThan(5 * 60_000);

      // npm over HTTP, behind the proxy sidecar.
      const echoed = await client.callTool({
        name: 'everything__echo',
        arguments: { message: 'from a pod' },
      });
      expect(text(echoed)).toBe('Echo: from a pod');

      // A write tool: refused to the read key before the server is reached …
      const entity = {
        name: 'cluster-test',
        entityType: 'check',
        observations: ['written through the gateway'],
      };
      const refused = await client
        .callTool({ name: 'memory__create_entities', arguments: { entities: [entity] } })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(ProtocolError);
      expect(refused).toMatchObject({ code: -31003 });
      expect((refused as Error).message).toMatch(
        /memory__create_entities needs an API key with write access/,
      );
      const untouched = await client.callTool({ name: 'memory__read_graph', arguments: {} });
      expect(text(untouched)).not.toContain('cluster-test');

      // … served to the write key, and read back with the read key (one replica: one process).
      const writing = await connect(gateway, writerKey);
      try {
        const created = await writing.callTool({
          name: 'memory__create_entities',
          arguments: { entities: [entity] },
        });
        expect(created.isError ?? false).toBe(false);
        expect(text(created)).toContain('cluster-test');
      } finally {
        await writing.close();
      }
      const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
      expect(text(graph)).toContain('written through the gateway');
    } finally {
      await client.close();
    }

    await kubectlOk([
      '-n',
      NS,
      'delete',
      'mcpsource/memory',
      'mcpsource/time',
      'mcpsource/everything',
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
