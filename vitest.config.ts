import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/infra/kube-global-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/vitest.json' },
  },
});
