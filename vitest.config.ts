import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The pod tests run in their own pass, alone: vitest.cluster.config.ts (npm run test:cluster).
    exclude: ['test/e2e/**', '**/node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/infra/kube-global-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/vitest.json' },
  },
});
