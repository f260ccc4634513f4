// A run's curate compares it with the account's few newest complete runs (src/events/curate.ts):
// reading them must cost those runs' dates, not the account's whole history of manifests.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { completeRuns, recentCompleteRuns } from '../src/history/complete-runs.js';
import { assembleManifest, writeManifest } from '../src/records/manifest.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { tablePartKey } from '../src/sinks/layout.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import { addDays } from '../src/util/time.js';
import { tempDir } from './helpers/harness.js';

/** One complete nightly run of `date`: its sync_runs part, then its manifest naming it. */
async function completeRun(store: ObjectStore, date: string): Promise<string> {
  const runId = `${date.replaceAll('-', '')}-nightly-${date.slice(8)}aa00bb`;
  const key = tablePartKey({ table: 'sync_runs', partitionDate: date, account: 'acme', runId, part: 0 });
  const row = {
    run_id: runId,
    status: 'succeeded',
    endpoints: ['brands'],
    workspaces_succeeded: ['w1'],
    recorded_at: `${date}T03:00:00Z`,
  };
  const part = await store.put(key, gzipSync(`${JSON.stringify(row)}\n`), {
    contentType: 'application/x-ndjson',
  });
  const m = assembleManifest({
    run: { account: 'acme', runId, runDate: date },
    kind: 'nightly',
    startedAt: `${date}T02:00:00.000Z`,
    visibilityDays: 1,
    buyerIntentDays: [7],
    workspaces: [{ brand_id: 'w1', status: 'succeeded' }],
    files: [part],
    loads: [],
    requests: { calls: 1, rate_limited: 0, retries: 0, waited_ms: 0 },
    drift: [],
  });
  await writeManifest(store, m);
  return runId;
}

/** The store, counting the manifests read. */
function counting(store: ObjectStore) {
  const seen = { manifests: 0 };
  const wrapped = new Proxy(store, {
    get(target, prop) {
      if (prop === 'get')
        return (key: string) => {
          if (key.endsWith('/manifest.json')) seen.manifests++;
          return target.get(key);
        };
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store: wrapped, seen };
}

describe('recentCompleteRuns', () => {
  it('reads the newest dates only: 7 of 60 nights, the same runs completeRuns ranks first', async () => {
    const store = new FsObjectStore(tempDir());
    const ids: string[] = [];
    for (let d = 0; d < 60; d++) ids.push(await completeRun(store, addDays('2026-09-01', d)));
    const now = Date.parse('2026-11-26T12:00:00Z');
    const current = ids.at(-1);
    const keep = (r: { runId: string }) => r.runId !== current;

    const all = counting(store);
    const everything = (await completeRuns(all.store, 'acme', now)).filter(keep).slice(0, 7);
    const recent = counting(store);
    const newest = await recentCompleteRuns(recent.store, 'acme', now, { limit: 7, keep });

    expect(newest.map((r) => r.runId)).toEqual(everything.map((r) => r.runId));
    expect(newest.map((r) => r.runId)).toEqual(ids.slice(-8, -1).reverse());
    expect(all.seen.manifests).toBe(60);
    expect(recent.seen.manifests).toBe(8);
  });
});
