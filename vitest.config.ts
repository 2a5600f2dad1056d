import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests open real SQLite files and HTTP servers; two cores do not gain from more forks.
    pool: 'forks',
    maxWorkers: 2,
    // One module graph per worker, not per file: importing the whole app again for every file is
    // the suite's largest overhead. So each file stops what it starts (servers, jobs, spies).
    isolate: false,
    globalSetup: ['test/globalSetup.ts'],
    // The JSON report lets .ci/run print one plain "N passed, N failed" line at the end.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
