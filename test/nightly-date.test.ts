// The logical date of a nightly run is the UTC date of the time its scheduler meant it to fire,
// whenever BullMQ created the job (when the previous one fired, or when a worker restarted). The
// real job scheduler is driven on a shifted clock: BullMQ computes cron times and promotes
// delayed jobs from Date.now(), so shifting it is a night passing.
import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { openJobsClient } from '../jobs/jobs-client.js';
import type { LedgerRun } from '../jobs/ledger.js';
import { dueAt, schedulerId } from '../jobs/schedules.js';
import { logicalRunId } from '../src/records/run-id.js';
import { isFinishedStatus } from '../src/records/run-state.js';
import { startWorker, type WorkerHandle } from '../src/run/queued/worker.js';
import { configFor, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { waitFor } from './helpers/wait-for.js';

const realNow = Date.now.bind(Date);
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
  vi.restoreAllMocks();
});

/** Date.now() as if it were `iso` now, moving on in real time from there. */
function setClock(iso: string): void {
  const offset = Date.parse(iso) - realNow();
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
}

describe('nightly logical date', () => {
  it('three nights with a worker restart between midnight and the cron time: three run ids, three dates, no skip; a night missed entirely is covered by the next window', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const config = configFor(s, dir, {
      extract: { visibilityDays: 1, overlapDays: 1 },
      top: {
        redis: { url: inject('redisUrl'), prefix: `n-${randomUUID().slice(0, 8)}` },
        jobs: { lockSeconds: 2, maxBudgetWaitSeconds: 1 },
        schedule: { nightly: { cron: '0 3 * * *', tz: 'UTC' } },
      },
    });
    const client = openJobsClient(config, 'test');
    closers.push(() => client.close());
    const queue = client.queues.for('acme');
    let worker: WorkerHandle | undefined;
    const start = async (iso: string) => {
      setClock(iso);
      worker = await startWorker({ config, logger: memoryLogger('warn').logger, concurrency: 2 });
    };
    const stop = async () => {
      await worker?.close(5000);
      worker = undefined;
    };
    closers.push(stop);

    /** Lets the night of `date` come: the clock reaches 03:00:01 and the due job is released. */
    const night = async (date: string): Promise<LedgerRun & { skipped?: string }> => {
      const due = Date.parse(`${date}T03:00:00Z`);
      const delayed = await queue.getDelayed();
      expect(delayed.map((j) => j.id)).toEqual([`repeat:${schedulerId('acme')}:${due}`]);
      setClock(`${date}T03:00:01Z`);
      // What BullMQ's delay timer does at the due time, without waiting for its next poll.
      await (delayed[0] as Job).promote();
      let job: Job | undefined;
      return waitFor(
        async () => {
          job = await queue.getJob(delayed[0]!.id!);
          const result = job?.returnvalue as { runId: string; skipped?: string } | undefined;
          const run = result ? await client.ledger.get(result.runId) : undefined;
          if (!run || !isFinishedStatus(run.status)) return undefined;
          return { ...run, ...(result?.skipped ? { skipped: result.skipped } : {}) };
        },
        { what: () => `night ${date}: job ${job?.id} ${job?.failedReason ?? ''}` },
      );
    };

    await start('2026-11-09T12:00:00Z');
    const first = await night('2026-11-10');
    // A restart after midnight, before the cron time: BullMQ re-creates the pending job now.
    await stop();
    await start('2026-11-11T00:30:00Z');
    const second = await night('2026-11-11');
    const third = await night('2026-11-12');
    // The worker is down through the night of 11-13; it comes back the next day after midnight.
    await stop();
    await start('2026-11-14T00:30:00Z');
    const fifth = await night('2026-11-14');

    const runs = [first, second, third, fifth];
    expect(runs.map((r) => r.run_date)).toEqual(['2026-11-10', '2026-11-11', '2026-11-12', '2026-11-14']);
    expect(runs.map((r) => r.run_id)).toEqual(runs.map((r) => logicalRunId('nightly', 'acme', r.run_date)));
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(runs.map((r) => r.skipped)).toEqual([undefined, undefined, undefined, undefined]);
    // Every night called the API (none was skipped as "already succeeded").
    expect(runs.map((r) => r.calls > 0)).toEqual([true, true, true, true]);
    expect(s.log.filter((e) => e.endpoint === 'me')).toHaveLength(4);
    // The missed night: last success 11-12, so 11-13 and 11-14 plus one day of overlap.
    expect(fifth.window_from).toBe('2026-11-12');
    expect(fifth.visibility_days).toBe(3);
  });
});

describe('dueAt', () => {
  const job = (o: Partial<Job>) => ({ timestamp: 1_000, delay: 0, opts: {}, ...o }) as Job;

  it('reads the fire time from the id BullMQ gives a scheduler iteration', () => {
    const due = Date.parse('2026-11-10T03:00:00Z');
    expect(
      dueAt(
        job({ id: `repeat:nightly-acme:${due}`, repeatJobKey: 'nightly-acme', timestamp: due - 86_400_000 }),
      ),
    ).toBe(due);
  });

  it('falls back to the scheduled millis in the options, then to creation time plus delay', () => {
    expect(dueAt(job({ id: 'x', repeatJobKey: 'nightly-acme', opts: { prevMillis: 5_000 } as never }))).toBe(
      5_000,
    );
    expect(dueAt(job({ id: 'x', timestamp: 1_000, delay: 2_000 }))).toBe(3_000);
    expect(dueAt(job({ id: 'x', timestamp: 1_000 }))).toBe(1_000);
  });
});
