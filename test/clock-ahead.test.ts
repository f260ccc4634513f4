// A machine whose clock runs 30 days ahead dates its run in the future; before, that run then held
// every latest/ section, topped `visync runs` and set the start of the nightly window until the
// calendar caught up. Now the run is refused (the API server's Date header shows the clock is
// ahead), and wherever runs are ordered a run dated ahead of today counts as older than any other.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mergeLatest } from '../src/curate/latest.js';
import type { LandedRaw } from '../src/normalise/types.js';
import { lastSucceededRun } from '../src/records/history.js';
import { movesLastSuccess } from '../src/records/last-success.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { addDays, utcDate } from '../src/util/time.js';
import { configFile, readText, sim, tempDir, visyncCli } from './helpers/harness.js';

const DAY = 86_400_000;
const runIdOf = (line: string) => /\| run (\S+) \|/.exec(line)![1]!;

afterEach(() => {
  vi.useRealTimers();
});

describe('a clock ahead', () => {
  it('refuses the run in one line; the next run under the right clock is the newest for latest/, runs and the window', async () => {
    const today = utcDate(new Date());
    // The API keeps the right date: its data and its Date header.
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], today });
    const dir = tempDir();
    const { path } = configFile(s, dir);
    const run = () => visyncCli(path, ['run', '--once', '--log-level', 'silent']);

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 30 * DAY);
    const ahead = await run();
    vi.useRealTimers();
    expect(ahead.code).toBe(1);
    const lines = ahead.err.filter((l) => l.includes('clock'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^visync: acme: this machine's clock .* is 30 days ahead of the API server's/);
    const aheadId = runIdOf(ahead.out[0]!);
    expect(aheadId.startsWith(addDays(today, 30).replaceAll('-', ''))).toBe(true);

    const normal = await run();
    expect(normal.code).toBe(0);
    const normalId = runIdOf(normal.out[0]!);

    // latest/: every section of every workspace from the run under the right clock.
    const latestDir = join(dir, 'latest', 'account=acme');
    const bundles = readdirSync(latestDir).map((f) => JSON.parse(readText(latestDir, f)));
    expect(bundles).toHaveLength(2);
    for (const b of bundles) {
      expect(b.run_id).toBe(normalId);
      expect(new Set(Object.values(b.sections).map((x) => (x as { run_id: string }).run_id))).toEqual(
        new Set([normalId]),
      );
    }
    // `visync runs`: the normal run first, the refused one after it.
    const runs = await visyncCli(path, ['runs', '--json']);
    expect(runs.code).toBe(0);
    expect((JSON.parse(runs.out.join('\n')) as { run_id: string }[]).map((r) => r.run_id)).toEqual([
      normalId,
      aheadId,
    ]);
    // The nightly window counts from the normal run.
    expect((await lastSucceededRun(new FsObjectStore(dir), 'acme'))?.run_id).toBe(normalId);
  });

  it('a run dated ahead that got through (no Date header) never holds a latest/ section or the last-success mark', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const rec = (runId: string, date: string): LandedRaw => ({
      endpoint: 'prompts',
      account: 'acme',
      runId,
      snapshotDate: date,
      extractedAt: `${date}T02:00:00.000Z`,
      brandId: 'b',
      body: { runId },
    });
    const future = mergeLatest(undefined, 'acme', 'b', [rec('future', '2026-12-26')], now);
    const after = mergeLatest(future, 'acme', 'b', [rec('today', '2026-11-26')], now);
    expect(after.sections.prompts?.run_id).toBe('today');
    expect(after.run_id).toBe('today');
    // An older run still never replaces a newer one that is not ahead of today.
    expect(mergeLatest(after, 'acme', 'b', [rec('older', '2026-11-25')], now).sections.prompts?.run_id).toBe(
      'today',
    );
    // Tomorrow is not ahead (time zones, a run that starts just before midnight elsewhere).
    expect(
      mergeLatest(after, 'acme', 'b', [rec('tomorrow', '2026-11-27')], now).sections.prompts?.run_id,
    ).toBe('tomorrow');

    const ok = { status: 'succeeded', run_date: '2026-11-26' };
    expect(movesLastSuccess({ ...ok, run_date: '2026-12-26' }, '2026-11-25', now)).toBe(false);
    expect(movesLastSuccess(ok, '2026-12-26', now)).toBe(true);
    expect(movesLastSuccess({ ...ok, run_date: '2026-11-24' }, '2026-11-25', now)).toBe(false);
  });
});
