// The last-success mark sets where the next nightly window starts. Only a run that covered every
// workspace and every endpoint, with a window reaching back to the day after the mark, may move
// it: a sync of one workspace, of one endpoint, or of a shorter window would make the next nightly
// skip days for everything it did not fetch. One rule for the ledger and for the manifests.
import { describe, expect, it } from 'vitest';
import { type EnqueueRequest, enqueueRun } from '../jobs/enqueue.js';
import type { LedgerRun } from '../jobs/ledger.js';
import { lastSucceededRun } from '../src/records/history.js';
import { assembleManifest, type Manifest, readManifest, writeManifest } from '../src/records/manifest.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { configFor, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, waitForRun, worker } from './helpers/jobs.js';

/** A worker, and `run`: acme's run enqueued at `at`, once it has succeeded. */
async function queuedRuns(config: ReturnType<typeof jobsConfig>) {
  await worker(config);
  const c = jobsClient(config);
  const run = async (r: Omit<EnqueueRequest, 'account' | 'now'>, at: string): Promise<LedgerRun> => {
    const { runId } = await enqueueRun(c.queues, c.ledger, config, {
      account: 'acme',
      ...r,
      now: new Date(at),
    });
    const done = await waitForRun(config, runId);
    expect(done.status, `${r.kind} at ${at}`).toBe('succeeded');
    return done;
  };
  return { c, run };
}

describe('last success and the nightly window', () => {
  it('a succeeded --brand, --endpoints or shorter --days sync after a nightly does not shrink the next nightly window; a full sync does move it', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const [first] = s.accounts[0]!.workspaceIds;
    const dir = tempDir();
    const config = jobsConfig(s, dir, { extract: { visibilityDays: 1, overlapDays: 1 } });
    const { c, run } = await queuedRuns(config);

    await run({ kind: 'nightly' }, '2026-11-10T03:00:00Z');
    // Nights 11-11 to 11-14 were missed; on 11-14 someone synced parts of the account.
    const brandSync = await run({ kind: 'sync', brands: [first!], days: 5 }, '2026-11-14T09:00:00Z');
    await run({ kind: 'sync', endpoints: ['visibility'], days: 5 }, '2026-11-14T10:00:00Z');
    await run({ kind: 'sync', days: 1 }, '2026-11-14T11:00:00Z');
    expect((await c.ledger.lastSuccess('acme'))?.run_date).toBe('2026-11-10');
    expect(brandSync.scope).toEqual({ brands: [first], endpoints: 'all' });
    const brandManifest = (await readManifest(new FsObjectStore(dir), 'acme', brandSync.run_id))!;
    expect(brandManifest.scope).toEqual({ brands: [first], endpoints: 'all' });

    // The next nightly still covers every day since 11-10 (plus one day of overlap).
    const n15 = await run({ kind: 'nightly' }, '2026-11-15T03:00:00Z');
    expect(n15.window_from).toBe('2026-11-10');
    expect(n15.visibility_days).toBe(6);

    // A sync of everything whose window reaches back to the day after the mark moves it.
    await run({ kind: 'sync', days: 2 }, '2026-11-16T09:00:00Z');
    expect((await c.ledger.lastSuccess('acme'))?.run_date).toBe('2026-11-16');
    const n17 = await run({ kind: 'nightly' }, '2026-11-17T03:00:00Z');
    expect(n17.window_from).toBe('2026-11-16');
    expect(n17.visibility_days).toBe(2);
  }, 60_000);

  it('a queued sync without --days covers every day since the last success, as run --once does; --days is exact', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const config = jobsConfig(s, dir, { extract: { visibilityDays: 2, overlapDays: 1 } });
    const { run } = await queuedRuns(config);
    await run({ kind: 'nightly' }, '2026-11-10T03:00:00Z');
    // Nights 11-11 to 11-13 were missed: the sync on 11-14 fetches them, plus one day of overlap.
    const sync = await run({ kind: 'sync' }, '2026-11-14T09:00:00Z');
    expect(sync.visibility_days).toBe(5);
    expect(sync.window_from).toBe('2026-11-10');
    expect(s.log.filter((e) => e.endpoint === 'visibility').at(-1)?.query.days).toBe('5');
    // --days N is N days, whatever the last success.
    const exact = await run({ kind: 'sync', days: 1 }, '2026-11-20T09:00:00Z');
    expect(exact.visibility_days).toBe(1);
    expect(exact.window_from).toBe('2026-11-20');
  }, 60_000);

  it('rebuilt from the manifests (Redis lost the ledger): the same rule, and a manifest without scope counts as full', async () => {
    const store = new FsObjectStore(tempDir());
    const write = async (p: {
      id: string;
      date: string;
      days: number;
      scope?: Manifest['scope'];
      legacy?: boolean;
    }) => {
      const m = assembleManifest({
        run: { account: 'acme', runId: p.id, runDate: p.date },
        kind: 'sync',
        startedAt: `${p.date}T09:00:00Z`,
        visibilityDays: p.days,
        buyerIntentDays: [7],
        scope: p.scope,
        workspaces: [{ brand_id: 'w-1', status: 'succeeded' }],
        files: [],
        loads: [],
        requests: { calls: 1, rate_limited: 0, retries: 0, waited_ms: 0 },
        drift: [],
      });
      if (p.legacy) delete m.scope;
      expect(m.status).toBe('succeeded');
      await writeManifest(store, m);
    };
    // Written before runs recorded their scope: a full run.
    await write({ id: '20261110-nightly-aaaaaaaa', date: '2026-11-10', days: 1, legacy: true });
    // On 11-14: a sync of one workspace, one of one endpoint, and a full one of too short a window.
    const partials: [string, number, Manifest['scope']][] = [
      ['20261114-sync-bbbbbbbb', 5, { brands: ['w-1'], endpoints: 'all' }],
      ['20261114-sync-cccccccc', 5, { brands: 'all', endpoints: ['visibility'] }],
      ['20261114-sync-dddddddd', 1, { brands: 'all', endpoints: 'all' }],
    ];
    for (const [id, days, scope] of partials) {
      await write({ id, date: '2026-11-14', days, scope });
      expect((await lastSucceededRun(store, 'acme'))?.run_id, `after ${id}`).toBe(
        '20261110-nightly-aaaaaaaa',
      );
    }

    await write({
      id: '20261115-sync-eeeeeeee',
      date: '2026-11-15',
      days: 5,
      scope: { brands: 'all', endpoints: 'all' },
    });
    expect((await lastSucceededRun(store, 'acme'))?.run_id).toBe('20261115-sync-eeeeeeee');
  });

  it('run --once --brand records its scope in the manifest and is not a last success', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const [first] = s.accounts[0]!.workspaceIds;
    const dir = tempDir();
    const config = configFor(s, dir);
    const store = new FsObjectStore(dir);
    const once = async (brands?: string[]) =>
      (await runInline({ config, store, logger: memoryLogger().logger, ...(brands ? { brands } : {}) }))
        .manifests[0]!;
    const partial = await once([first!]);
    expect(partial.status).toBe('succeeded');
    expect(partial.scope).toEqual({ brands: [first], endpoints: 'all' });
    expect(await lastSucceededRun(store, 'acme')).toBeUndefined();
    const full = await once();
    expect(full.scope).toEqual({ brands: 'all', endpoints: 'all' });
    expect((await lastSucceededRun(store, 'acme'))?.run_id).toBe(full.run_id);
  });
});
