// Preloaded into a gateway process by the allocation benchmark (`node --import`), never shipped: a
// loopback HTTP port (AGW_ALLOC_PROBE_PORT) that the benchmark asks, between windows of load, for
// the JS heap in use and how many collections ran, and to start or stop V8's sampling heap profiler
// (objects later collected included), answered as allocation by site. With young generation made
// large enough that no collection runs inside a window, the growth of the used heap over a window
// is what the window allocated, exactly; the sampled profile only says where.
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

interface SamplingNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly SamplingNode[];
}

let collections = 0;
new PerformanceObserver((list) => {
  collections += list.getEntries().length;
}).observe({ entryTypes: ['gc'] });

const session = new Session();
session.connect();

interface SampledSite {
  url: string;
  functionName: string;
  line: number;
  bytes: number;
  /** The callers, nearest first ("function url:line"), up to thirty. */
  stack: string[];
}

const frameOf = (node: SamplingNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '')}:${node.callFrame.lineNumber + 1}`;

/** Every sampled site with the bytes it allocated (the profile's own estimate) and its callers. */
function sites(root: SamplingNode): SampledSite[] {
  const out: SampledSite[] = [];
  const walk = (node: SamplingNode, callers: string[]) => {
    if (node.selfSize > 0)
      out.push({
        url: node.callFrame.url,
        functionName: node.callFrame.functionName,
        line: node.callFrame.lineNumber + 1,
        bytes: node.selfSize,
        stack: callers.slice(-30).reverse(),
      });
    const next = [...callers, frameOf(node)];
    for (const child of node.children) walk(child, next);
  };
  walk(root, []);
  return out;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

async function command(path: string): Promise<unknown> {
  if (path === '/mark') {
    (globalThis as { gc?: () => void }).gc?.();
    await settle();
    return { usedHeap: getHeapStatistics().used_heap_size, collections };
  }
  if (path === '/read') {
    const usedHeap = getHeapStatistics().used_heap_size;
    await settle();
    return { usedHeap, collections };
  }
  if (path === '/memory') {
    const usage = process.memoryUsage();
    const heap = getHeapStatistics();
    return {
      ...usage,
      heapLimit: heap.heap_size_limit,
      malloced: heap.malloced_memory,
      external: heap.external_memory,
    };
  }
  if (path === '/gc') {
    (globalThis as { gc?: () => void }).gc?.();
    return {};
  }
  if (path === '/sample/start') {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return {};
  }
  if (path === '/sample/stop') {
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as {
      profile: { head: SamplingNode };
    };
    return { sites: sites(profile.head) };
  }
  throw new Error(`unknown probe command ${path}`);
}

const port = Number(process.env['AGW_ALLOC_PROBE_PORT']);
const server = createServer((request, response) => {
  command(request.url ?? '').then(
    (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
    (error: unknown) => response.writeHead(400).end(String(error)),
  );
});
server.listen(port, '127.0.0.1');
server.unref();
