// One memory reading of a benchmark participant (issue 26): resident set size from /proc (with the
// share of its direct children, printed beside it) and, for a Node participant started with the heap
// reporter (heap-reporter.ts), its V8 heap.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { childrenRssMiB, processTreeRssMiB } from './process-stats.js';

export interface MemorySample {
  readonly rssMiB: number | undefined;
  /** Of which the direct children's (the README example's demo server over stdio); 0 without any. */
  readonly childrenMiB?: number | undefined;
  /** V8 heap in use and reserved, when the participant reports it. */
  readonly heapUsedMiB?: number;
  readonly heapTotalMiB?: number;
}

/** A Node participant that reports its heap: the flags and environment to start it with. */
export interface HeapReporting {
  readonly nodeArgs: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly file: string;
}

export function heapReporting(dir: string, name: string): HeapReporting {
  const file = join(dir, `${name}.heap.json`);
  return {
    nodeArgs: ['--import', './dist/test/bench/heap-reporter.js'],
    env: { ...process.env, AGW_BENCH_HEAP_FILE: file },
    file,
  };
}

const MIB = 1024 * 1024;

export async function sampleMemory(
  pid: number | undefined,
  reporting?: HeapReporting,
): Promise<MemorySample> {
  const rssMiB = await processTreeRssMiB(pid);
  const childrenMiB = await childrenRssMiB(pid);
  if (reporting === undefined || pid === undefined) return { rssMiB, childrenMiB };
  await rm(reporting.file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const text = await readFile(reporting.file, 'utf8').catch(() => '');
    if (text !== '') {
      const usage = JSON.parse(text) as { heapUsed: number; heapTotal: number };
      return {
        rssMiB,
        childrenMiB,
        heapUsedMiB: usage.heapUsed / MIB,
        heapTotalMiB: usage.heapTotal / MIB,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { rssMiB, childrenMiB };
}

export function formatSample(sample: MemorySample): string {
  const children =
    sample.childrenMiB === undefined || sample.childrenMiB === 0
      ? ''
      : ` [children ${sample.childrenMiB.toFixed(0)} MiB]`;
  const rss = sample.rssMiB === undefined ? 'n/a' : `${sample.rssMiB.toFixed(0)} MiB${children}`;
  if (sample.heapUsedMiB === undefined) return `RSS ${rss}`;
  return `RSS ${rss} (heap ${sample.heapUsedMiB.toFixed(0)} of ${(sample.heapTotalMiB ?? 0).toFixed(0)} MiB)`;
}
