import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests open real SQLite files and HTTP servers; two cores do not gain from more forks.
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/globalSetup.ts'],
    // The JSON report lets .ci/run print one plain "N passed, N failed" line at the end.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
