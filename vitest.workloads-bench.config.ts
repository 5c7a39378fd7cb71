// `npm run bench -- workloads` (test/bench/workloads-bench.ts): the workloads benchmark runs on the
// pod tests' one-node cluster and global setup, but is no test: it asserts nothing and prints numbers.
import { defineConfig, mergeConfig } from 'vitest/config';
import cluster from './vitest.cluster.config.js';

export default mergeConfig(
  cluster,
  defineConfig({
    test: {
      include: ['test/bench/workloads-on-a-node.run.ts'],
      testTimeout: 1_800_000,
      reporters: ['default'],
    },
  }),
  false,
);
