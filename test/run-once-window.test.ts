// `run --once` without --days asks for every day since the account's last succeeded full run (plus
// extract.overlapDays), read from the manifests in the sink: nights a cron-driven run --once missed
// are fetched by the next one, with no Redis. --days still wins. Nights are played through
// runInline's runDate, so the test never waits for a clock.
import { describe, expect, it } from 'vitest';
import { lastSucceededRun } from '../src/records/history.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { configFor, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { until } from './helpers/jobs.js';

const runSecond = () => new Date().toISOString().slice(0, 19);

describe('run --once window', () => {
  it('after two missed nights the next run fetches them (and its overlap), moves the mark; --days 3 asks for 3', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const store = new FsObjectStore(dir);
    const config = configFor(s, dir, { extract: { visibilityDays: 3, overlapDays: 2 } });
    /** One night's run --once; the `days` the API was asked for visibility, and the manifest. */
    let lastStart = '';
    const night = async (runDate: string, days?: number) => {
      // Manifests are read in run-id order, and a run --once id carries its start second: two
      // nights played within one second would be read in random order.
      await until('the next second for a new run id', async () => runSecond() !== lastStart);
      lastStart = runSecond();
      const from = s.log.length;
      const { manifests, status } = await runInline({
        config,
        store,
        logger: memoryLogger('warn').logger,
        runDate,
        ...(days ? { days } : {}),
      });
      expect(status, runDate).toBe('succeeded');
      const asked = new Set(
        s.log
          .slice(from)
          .filter((e) => e.endpoint === 'visibility')
          .map((e) => e.query.days),
      );
      return { m: manifests[0]!, asked: [...asked] };
    };

    // The first night has no earlier success: the configured window.
    const first = await night('2026-11-10');
    expect(first.m.window).toMatchObject({ visibility_days: 3, from: '2026-11-08', to: '2026-11-10' });
    expect(first.asked).toEqual(['3']);
    expect((await lastSucceededRun(store, 'acme'))?.run_id).toBe(first.m.run_id);

    // 11-11 and 11-12 were missed: on 11-13 the window is the 3 days since the mark plus 2 of
    // overlap, 11-09 to 11-13, so the missed days are fetched.
    const third = await night('2026-11-13');
    expect(third.m.window).toMatchObject({ visibility_days: 5, from: '2026-11-09', to: '2026-11-13' });
    expect(third.asked).toEqual(['5']);
    expect((await lastSucceededRun(store, 'acme'))?.run_id).toBe(third.m.run_id);

    // The next night is back to the configured window (1 day since the mark plus overlap < 3).
    const fourth = await night('2026-11-14');
    expect(fourth.m.window.visibility_days).toBe(3);

    // --days wins, even after missed nights.
    const explicit = await night('2026-11-20', 3);
    expect(explicit.m.window).toMatchObject({ visibility_days: 3, from: '2026-11-18', to: '2026-11-20' });
    expect(explicit.asked).toEqual(['3']);
    // Its window does not reach back to the mark: the mark stays, so the next run still fills the gap.
    expect((await lastSucceededRun(store, 'acme'))?.run_id).toBe(fourth.m.run_id);
    const after = await night('2026-11-21');
    expect(after.m.window).toMatchObject({ visibility_days: 9, from: '2026-11-13' });
  });
});
