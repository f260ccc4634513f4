// A finished partial run's manifest for alert tests: one workspace and one table load failed, with
// their reasons; `over` replaces any field.
import type { Manifest } from '../../src/records/manifest.js';

export function partialRunManifest(over: Partial<Manifest> = {}): Manifest {
  return {
    run_id: 'sync-20261123T020000Z-abcd',
    account: 'acme',
    kind: 'nightly',
    status: 'partial',
    started_at: '2026-11-23T02:00:00.000Z',
    finished_at: '2026-11-23T02:10:00.000Z',
    run_date: '2026-11-23',
    window: { visibility_days: 7, from: '2026-11-17', to: '2026-11-23', buyer_intent_days: [7] },
    workspaces: [
      { brand_id: 'brd_1', status: 'succeeded' },
      {
        brand_id: 'brd_2',
        status: 'failed',
        error: 'HTTP 404: workspace brd_2 is not owned by this account',
      },
    ],
    files: [],
    loads: [
      { table: 'brands', job_id: 'j1', status: 'succeeded', rows: 2 },
      {
        table: 'prompts',
        job_id: 'j2',
        status: 'failed',
        rows: 0,
        error: 'Access Denied: dataset visibility',
      },
    ],
    requests: { calls: 10, rate_limited: 0, retries: 0, waited_ms: 0 },
    drift: [],
    ...over,
  };
}
