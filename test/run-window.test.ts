// The nightly window rule (src/records/window.ts): every day since the account's last success plus
// the overlap, at least the configured window, at most the API's 365 days; and where the last
// success comes from (the caller's record, else the manifests in the sink).
import { describe, expect, it } from 'vitest';
import { assembleManifest, type Manifest, writeManifest } from '../src/records/manifest.js';
import {
  accountWindowDays,
  configuredWindowDays,
  daysBetween,
  nightlyWindowDays,
} from '../src/records/window.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import { tempDir } from './helpers/harness.js';

describe('daysBetween', () => {
  it('counts calendar days in UTC, across months and years', () => {
    expect(daysBetween('2026-11-10', '2026-11-10')).toBe(0);
    expect(daysBetween('2026-11-09', '2026-11-10')).toBe(1);
    expect(daysBetween('2026-10-31', '2026-11-01')).toBe(1);
    expect(daysBetween('2025-12-31', '2026-01-01')).toBe(1);
    expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2);
    // The days a European clock change shortens or lengthens are whole days in UTC.
    expect(daysBetween('2026-03-28', '2026-03-30')).toBe(2);
    expect(daysBetween('2026-11-10', '2026-11-05')).toBe(-5);
  });
});

describe('nightlyWindowDays', () => {
  const w = (runDate: string, lastSuccessRunDate?: string, o = { overlapDays: 2, visibilityDays: 3 }) =>
    nightlyWindowDays({ runDate, lastSuccessRunDate, ...o });

  it('is the configured window without a last success, or when the last success is recent', () => {
    expect(w('2026-11-10')).toBe(3);
    expect(w('2026-11-10', '2026-11-09')).toBe(3);
    expect(w('2026-11-10', '2026-11-10')).toBe(3);
  });

  it('covers every day since the last success plus the overlap, capped at 365', () => {
    expect(w('2026-11-10', '2026-11-05')).toBe(7);
    expect(w('2026-11-10', '2025-11-12')).toBe(365);
    expect(w('2026-11-10', '2024-01-01')).toBe(365);
  });

  it('grows by one day for each night missed, from where the configured window no longer covers them', () => {
    const days = ['2026-11-09', '2026-11-08', '2026-11-07', '2026-11-06'].map((last) =>
      w('2026-11-10', last),
    );
    expect(days).toEqual([3, 4, 5, 6]);
  });

  it('a last success dated after the run (a backfill enqueued for a later date) never shrinks the window', () => {
    expect(w('2026-11-10', '2026-11-12')).toBe(3);
  });

  it('with no overlap the window starts the day after the last success', () => {
    expect(w('2026-11-10', '2026-11-01', { overlapDays: 0, visibilityDays: 1 })).toBe(9);
  });

  it('a configured window of 365 days stays 365', () => {
    expect(w('2026-11-10', '2026-11-01', { overlapDays: 2, visibilityDays: 365 })).toBe(365);
  });
});

describe('accountWindowDays', () => {
  const extract = { visibilityDays: 3, overlapDays: 2 };
  /** A store that must not be read: the caller's record of the last success is enough. */
  const unread = new Proxy({} as ObjectStore, {
    get: () => () => {
      throw new Error('the store was read');
    },
  });

  it("uses the caller's last success (the workers' ledger) without reading the sink", async () => {
    const days = await accountWindowDays({
      store: unread,
      account: 'acme',
      runDate: '2026-11-10',
      extract,
      lastSuccessRunDate: async () => '2026-11-04',
    });
    expect(days).toBe(8);
    const none = await accountWindowDays({
      store: unread,
      account: 'acme',
      runDate: '2026-11-10',
      extract,
      lastSuccessRunDate: async () => undefined,
    });
    expect(none).toBe(3);
  });

  it('otherwise reads the last success from the manifests: only a succeeded run of everything counts', async () => {
    const store = new FsObjectStore(tempDir());
    const write = async (
      id: string,
      runDate: string,
      o: Partial<Parameters<typeof assembleManifest>[0]> = {},
      account = 'acme',
    ) => {
      const m: Manifest = assembleManifest({
        run: { account, runId: id, runDate },
        kind: 'nightly',
        startedAt: `${runDate}T03:00:00Z`,
        visibilityDays: 3,
        buyerIntentDays: [7],
        workspaces: [{ brand_id: 'w-1', status: 'succeeded' }],
        files: [],
        loads: [],
        requests: { calls: 1, rate_limited: 0, retries: 0, waited_ms: 0 },
        drift: [],
        ...o,
      });
      await writeManifest(store, m);
    };
    const window = (runDate: string) => accountWindowDays({ store, account: 'acme', runDate, extract });

    expect(await window('2026-11-10')).toBe(3);
    await write('20261101-nightly-aaaaaaaa', '2026-11-01');
    expect(await window('2026-11-10')).toBe(11);
    // A failed night and a sync of one workspace later on do not move the start.
    await write('20261105-nightly-bbbbbbbb', '2026-11-05', {
      workspaces: [{ brand_id: 'w-1', status: 'failed', error: 'x' }],
    });
    await write('20261106-sync-cccccccc', '2026-11-06', {
      kind: 'sync',
      scope: { brands: ['w-1'], endpoints: 'all' },
    });
    expect(await window('2026-11-10')).toBe(11);
    // Another account's runs are not this account's.
    await write('20261109-nightly-dddddddd', '2026-11-09', {}, 'beta');
    expect(await window('2026-11-10')).toBe(11);
    // A succeeded night of everything whose window reaches back to the day after the mark moves it.
    await write('20261109-nightly-eeeeeeee', '2026-11-09', { visibilityDays: 9 });
    expect(await window('2026-11-10')).toBe(3);
  });
});

describe('configuredWindowDays', () => {
  it('gives a queued backfill its configured days, and a nightly run and a sync none (they follow the last success)', () => {
    const extract = { backfillDays: 365 };
    expect(configuredWindowDays('backfill', extract)).toBe(365);
    expect(configuredWindowDays('sync', extract)).toBeUndefined();
    expect(configuredWindowDays('nightly', extract)).toBeUndefined();
  });
});
