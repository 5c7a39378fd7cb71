// Global setup of the pod tests: a cluster with a node and the images they run. By default the
// one-node cluster of test/infra/kube-cluster.sh (root; images from OCI archives built here: the
// gateway's by image/build.sh, published MCP servers' by test/infra/published-server-images.sh); with
// AGW_E2E_KUBECONFIG set, a cluster someone else made (test/e2e/kind/run.sh: kind, images loaded
// there). Prints how long each step took: these are the numbers in docs/benchmarks.md.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import type { ClusterImages, PublishedServerImages } from './cluster-context.js';

const run = promisify(execFile);

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    kubeBin: string;
    clusterMode: 'node' | 'external';
    clusterImages: ClusterImages;
  }
}

const CLUSTER = 'test/infra/kube-cluster.sh';
const VERSION = '0.1.0';

function say(line: string): void {
  process.stdout.write(`[cluster] ${line}\n`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env['AGW_E2E_KUBECONFIG'];
  if (external !== undefined && external !== '') {
    project.provide('kubeconfig', external);
    project.provide('kubeBin', process.env['AGW_E2E_KUBE_BIN'] ?? '');
    project.provide('clusterMode', 'external');
    project.provide('clusterImages', {
      gateway: process.env['AGW_E2E_IMAGE'] ?? `agent-gateway:e2e`,
      redis: process.env['AGW_E2E_REDIS_IMAGE'] ?? 'redis:7.0',
      postgres: process.env['AGW_E2E_POSTGRES_IMAGE'] ?? 'postgres:15',
      // test/infra/published-server-images.sh's archives, loaded by whoever made the cluster.
      published: {
        memory: process.env['AGW_E2E_MCP_MEMORY_IMAGE'] ?? 'localhost/agw-mcp-memory:2026.8.31',
        time: process.env['AGW_E2E_MCP_TIME_IMAGE'] ?? 'localhost/agw-mcp-time:2026.10.19',
        everything: process.env['AGW_E2E_MCP_EVERYTHING_IMAGE'] ?? 'localhost/agw-mcp-everything:2026.8.31',
      },
    });
    return () => Promise.resolve();
  }
  if (process.getuid?.() !== 0)
    throw new Error('the pod tests start a node (interfaces, iptables, containerd): run them as root');
  const cache = process.env['AGW_CLUSTER_CACHE'] ?? join(homedir(), '.cache', 'agw-cluster');
  const kubeBin = join(process.env['KUBE_TEST_BIN'] ?? join(homedir(), '.cache', 'kube-test-env'), 'bin');

  let t0 = Date.now();
  const built = await run('bash', ['image/build.sh', join(cache, 'gateway-image')], {
    env: { ...process.env, AGW_IMAGE_SKIP_BUILD: existsSync('dist/gateway/cli/cli-main.js') ? '1' : '0' },
    maxBuffer: 16 << 20,
  });
  const archive = built.stdout.trim().split('\n').pop() ?? '';
  say(`gateway image built in ${((Date.now() - t0) / 1000).toFixed(1)} s (${archive})`);

  // Published MCP servers as images (cached by content: seconds when nothing changed).
  t0 = Date.now();
  const publishedBuilt = await run(
    'bash',
    ['test/infra/published-server-images.sh', join(cache, 'published-images')],
    {
      maxBuffer: 16 << 20,
    },
  );
  const publishedArchives = publishedBuilt.stdout
    .trim()
    .split('\n')
    .map((line) => line.split(' ') as [string, string]);
  say(`published-server images ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  t0 = Date.now();
  // A node left by an interrupted run is stopped first: every run starts from nothing.
  await run('bash', [CLUSTER, 'stop']).catch(() => undefined);
  const started = await run('bash', [CLUSTER, 'start'], { maxBuffer: 16 << 20 }).catch((error: unknown) => {
    throw new Error(
      `the test cluster did not start: ${String((error as { stderr?: string }).stderr ?? error)}`,
    );
  });
  for (const line of started.stderr.trim().split('\n')) say(line.replace(/^\[kube-cluster\] /, ''));
  say(`warm start to a Ready node with DNS: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const kubeconfig = /export KUBECONFIG=(\S+)/.exec(started.stdout)?.[1];
  if (kubeconfig === undefined)
    throw new Error(`kube-cluster.sh start printed no KUBECONFIG: ${started.stdout}`);

  const gateway = `localhost/agent-gateway:${VERSION}`;
  await run('bash', [CLUSTER, 'import', archive, gateway]);
  for (const [file, image] of publishedArchives) await run('bash', [CLUSTER, 'import', file, image]);
  const publishedName = (stem: string) => {
    const found = publishedArchives.find(([file]) => file.endsWith(`/${stem}.oci.tar`));
    if (found === undefined) throw new Error(`published-server-images.sh built no ${stem}`);
    return found[1];
  };
  const published: PublishedServerImages = {
    memory: publishedName('mcp-memory'),
    time: publishedName('mcp-time'),
    everything: publishedName('mcp-everything'),
  };
  const name = async (file: string) => (await readFile(join(cache, 'images', file), 'utf8')).trim();
  project.provide('kubeconfig', kubeconfig);
  project.provide('kubeBin', kubeBin);
  project.provide('clusterMode', 'node');
  project.provide('clusterImages', {
    gateway,
    redis: await name('redis.name'),
    postgres: await name('postgres.name'),
    published,
  });
  return async () => {
    if (process.env['AGW_CLUSTER_KEEP'] === '1') {
      say(`kept running (AGW_CLUSTER_KEEP=1): export KUBECONFIG=${kubeconfig}; stop: bash ${CLUSTER} stop`);
      return;
    }
    await run('bash', [CLUSTER, 'stop']).catch(() => undefined);
  };
}
