// The suite in three tiers (vitest projects), so the loop while editing runs in about a minute:
//   unit         no server, no process, no network: pure normalisers, models, SQL text, config,
//                i18n, and checks that read the repository's own files
//   integration  real parts in this process: Redis, s3rver, the fake BigQuery, the simulator, an
//                SMTP server, BullMQ queues and workers
//   e2e          across a boundary: a spawned visync (the built bin), Chromium, npm pack and other
//                Node lines, DuckDB and dbt, the README's commands
// `npm test` runs all three; `npm run test:fast` runs unit and integration. A new file goes to
// integration unless it is named below; docs/development.md says how to choose.
import { defineConfig } from 'vitest/config';

const files = (names: string[]) => names.map((n) => `test/${n}.test.ts`);

const UNIT = files([
  'api-retry-decision',
  'bench-scale',
  'catalogue',
  'cli-commands-layout',
  'code-layout',
  'config',
  'report-agency-book',
  'config-reports',
  'mail-template',
  'report-link',
  'config-scale',
  'config-watch',
  'doc-sections',
  'errors',
  'history-comparison',
  'install',
  'layout',
  'ops-docs',
  'rate-budget',
  'readme-dependencies',
  'recent-complete-runs',
  'report-catalogues',
  'report-competitors',
  'report-goals',
  'report-goal-projection',
  'report-language-config',
  'report-model',
  'report-old-versions',
  'report-schedule',
  'report-summary',
  'review-page-html',
  'report-year-periods',
  'reservation-settle',
  'retry-after',
  'run-phase',
  'run-status',
  'run-window',
  'spool',
  'store-marker',
  'tier-times',
  'workspace-job-plan',
]);

const E2E = files([
  'built-bin-year-compare',
  // the built bin and the package as users get it
  'built-bin-delivery',
  'built-bin-export',
  'built-bin-sheets',
  'report-headline-mail',
  'dist-imports',
  'package',
  'node-versions',
  'demo',
  'readme-connect',
  'startup-imports',
  // a spawned visync: exit codes, signals, what reaches a terminal
  'cli',
  'cli-options',
  'store-writer',
  'crash-points',
  'doctor-cleanup',
  'doctor-webhook',
  'enqueue-no-worker',
  'events-names',
  'example-config',
  'finish-cap',
  'jobs',
  'load-batches',
  'log-output',
  'nightly-date',
  'ops-server',
  'progress-bar',
  'redis-cluster',
  'redis-down',
  'redis-rate-budget',
  'redis-restart',
  'budget-delays',
  'report-json',
  'report-removed-client-send',
  'report-send-once',
  'report-recipients',
  'report-artefact',
  'report-mail-templates',
  'report-to-date',
  'run-ownership',
  'runs-show',
  's3-faults',
  'secrets',
  'status-cli',
  'store-claims',
  'terminal-output',
  'worker-reload',
  'worker-shutdown',
  'workers',
  // Chromium and poppler
  'deploy',
  'docker-files',
  'doctor',
  'report',
  'report-bounds',
  'report-delivery',
  'report-languages',
  'report-overview',
  'report-agency',
  'report-goals-bin',
  // runs release 0.1.0 from its recorded commit (test/helpers/old-release.ts)
  'old-reports',
  'report-pdf',
  'report-print',
  'report-recs',
  'report-style',
  'ui-browser',
  'review-page',
  'review-hold-race',
  // DuckDB, dbt and the Athena grammars
  'brand-events',
  'dialects',
  'duckdb-dialect',
  'export',
  'export-dbt',
  'export-athena',
  'export-dbt-duckdb',
  'export-dbt-upgrade',
  'export-safety',
  'export-listing',
  'export-writer',
  'report-out-safety',
  'views',
  'views-e2e',
  // the previous release (built from its recorded commit) then this one on the same store
  'upgrade',
]);

export default defineConfig({
  test: {
    // A bound for a hang only (docs/development.md): ten times a slow test's quiet time or more.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep files parallel but bounded so rate-limit tests are not starved of CPU (a third
    // worker made the run no shorter: it is CPU-bound once the waits are gone).
    maxWorkers: 2,
    reporters: ['default', './test/setup/tier-times.ts'],
    projects: [
      {
        extends: true,
        // Modules shared between the files of a worker: pure code, imported once per worker.
        test: { name: 'unit', include: UNIT, isolate: false, setupFiles: ['test/setup/cleanups.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...E2E],
          isolate: false,
          setupFiles: ['test/setup/cleanups.ts'],
          globalSetup: ['test/setup/global-redis.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          // A bound for a hang only: at least ten times what the slowest test here takes on a quiet
          // machine (workers' SIGKILL takeover: about 12 s), so a loaded CI machine does not fail it.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Paid once per run: the bundle every spawned visync runs, and one Chromium for every page
          // and PDF (a test that proves a launch starts its own).
          globalSetup: [
            'test/setup/global-redis.ts',
            'test/setup/global-bundle.ts',
            'test/setup/global-chromium.ts',
          ],
          // Each file in a process of its own: the worker's HTTP server, its metrics registry and the
          // queue board keep process-wide state that files here read back.
          setupFiles: ['test/setup/chromium-env.ts'],
        },
      },
    ],
  },
});
