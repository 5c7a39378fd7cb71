// `npm run bench -- workloads` (test/bench/workloads-bench.ts): the workloads benchmark runs on the
// pod tests' one-node cluster and global setup, but is no test: it asserts nothing and prints numbers.
// (Not mergeConfig: it would append to the pod tests' include instead of replacing it.)
import { defineConfig } from 'vitest/config';
import cluster from './vitest.cluster.config.js';

export default defineConfig({
  test: {
    ...cluster.test,
    include: ['test/bench/workloads-on-a-node.run.ts'],
    testTimeout: 1_800_000,
    reporters: ['default'],
    outputFile: {},
  },
});
