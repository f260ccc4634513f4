import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: [
      'test/setup/global-redis.ts',
      'test/setup/global-bundle.ts',
      'test/setup/global-chromium.ts',
    ],
    setupFiles: ['test/setup/chromium-env.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep files parallel but bounded so rate-limit tests are not starved of CPU.
    maxWorkers: 2,
  },
});
