// The pod tests (issue 21): the chart on a one-node cluster (test/infra/kube-cluster.sh, or kind via
// test/e2e/kind/run.sh). Run after the main suite, alone, one file at a time: they time failovers and
// count failed requests, which other tests' load on two cores would blur.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/cluster/**/*.test.ts'],
    environment: 'node',
    testTimeout: 300_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/e2e/cluster/cluster-global-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/vitest-cluster.json' },
  },
});
