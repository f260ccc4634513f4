// A job's reservation can work the window in batches: it settles its answered calls a few at a
// time, so that the early calls of a long job free for the account's next window as they would one
// by one (never a slot whose request is not answered yet; the rest at the flush), and once its
// first reservation is used up it asks for a batch at a time.
import { describe, expect, it } from 'vitest';
import { type RateLimit, type ReservableBudget, Reservation } from '../src/api/rate-budget.js';

const limit: RateLimit = { requests: 120, windowMs: 60_000 };

/** Grants what is asked, up to `grants[i]` slots for the i-th reservation; records asks and settles. */
function recordingBudget(grants: number[] = []) {
  const settles: { used: string[]; unused: string[] }[] = [];
  /** Which step each settle came with: a reservation's own, or a settleMany of its own. */
  const settledBy: ('reserve' | 'settleMany')[] = [];
  const asked: number[] = [];
  const underWay: boolean[] = [];
  let n = 0;
  const budget: ReservableBudget = {
    tryTake: async () => ({ ok: true, slot: String(++n) }),
    settle: async () => {},
    pause: async () => {},
    pausedFor: () => 0,
    reserve: async (_a, _l, wanted, _hold, opts) => {
      // What the reservation settles in its own step is settled first, as by settleMany.
      const settle = opts?.settle;
      if (settle && (settle.used.length || settle.unused.length)) {
        settles.push({ used: [...settle.used], unused: [...settle.unused] });
        settledBy.push('reserve');
      }
      const granted = Math.min(wanted, grants[asked.length] ?? wanted);
      asked.push(wanted);
      underWay.push(opts?.underWay === true);
      return { slots: Array.from({ length: granted }, () => `s${++n}`), retryInMs: 0 };
    },
    settleMany: async (_a, used, unused) => {
      settles.push({ used: [...used], unused: [...unused] });
      settledBy.push('settleMany');
    },
  };
  return { budget, settles, settledBy, asked, underWay };
}

async function call(r: Reservation): Promise<string> {
  const t = await r.tryTake('acme', limit);
  if (!t.ok) throw new Error('no slot');
  return t.slot;
}

describe('a reservation working the window in batches', () => {
  it('settles each batch of answered slots, never one still in flight, and the rest at the flush', async () => {
    const { budget, settles } = recordingBudget();
    const r = new Reservation(budget, 25, 60_000, 10);
    const answered: string[] = [];
    for (let i = 0; i < 9; i++) {
      const slot = await call(r);
      await r.settle('acme', slot);
      answered.push(slot);
    }
    // The tenth call is taken but not answered: nothing is settled yet.
    const inFlight = await call(r);
    expect(settles).toEqual([]);
    await r.settle('acme', inFlight);
    expect(settles).toEqual([{ used: [...answered, inFlight], unused: [] }]);

    const later = await call(r);
    await r.settle('acme', later);
    await call(r); // taken, then the job ends: settled with the flush all the same
    await r.flush();
    expect(settles).toHaveLength(2);
    expect(settles[1]?.used).toEqual([later, expect.any(String)]);
    // The 13 slots reserved and never taken are given back.
    expect(settles[1]?.unused).toHaveLength(13);
  });

  it('asks for every call first, then, once that is used up, for a batch at a time, as a job under way', async () => {
    // The window had room for 4 of the job's 25 calls.
    const { budget, asked, underWay } = recordingBudget([4]);
    const r = new Reservation(budget, 25, 60_000, 10);
    for (let i = 0; i < 25; i++) await r.settle('acme', await call(r));
    expect(asked).toEqual([25, 10, 10, 1]);
    // Refused later on, it is told when the next slot frees, not queued as a new job.
    expect(underWay).toEqual([false, true, true, true]);
  });

  it('by default reserves every call at once and settles nothing before the flush', async () => {
    const { budget, settles, asked } = recordingBudget([4]);
    const r = new Reservation(budget, 12, 60_000);
    for (let i = 0; i < 12; i++) await r.settle('acme', await call(r));
    expect(asked).toEqual([12, 8]);
    expect(settles).toEqual([{ used: expect.any(Array), unused: [] }]);
    await r.flush();
    expect(settles[1]?.used).toHaveLength(8);
  });

  for (const batch of [10, Number.POSITIVE_INFINITY]) {
    it(`a new reservation made while calls of the job are in flight settles only those answered (batch ${batch})`, async () => {
      // A slot settled before its request arrives would free a window after the settle, before the
      // server frees it: the account's next window could then go over the limit (a 429 of our own).
      const { budget, settles, settledBy } = recordingBudget([2, 2]);
      const r = new Reservation(budget, 4, 60_000, batch);
      const answered = await call(r);
      const inFlight = await call(r);
      await r.settle('acme', answered);
      // The reservation is used up: the next call reserves again, settling what was answered.
      const third = await call(r);
      expect(settles).toEqual([{ used: [answered], unused: [] }]);
      // In the reservation's own step: one round trip, not a settle and then a reservation.
      expect(settledBy).toEqual(['reserve']);
      await r.settle('acme', inFlight);
      await r.settle('acme', third);
      await r.flush();
      expect(settles.flatMap((x) => x.used).sort()).toEqual([answered, inFlight, third].sort());
      expect(settles.at(-1)?.unused).toHaveLength(1);
    });
  }

  it('calls of one job made at once share a reservation, and each gets its own slot', async () => {
    // Two reservations of 3 slots each (the job expects 5 calls): 5 calls at once.
    const { budget, asked } = recordingBudget([3, 3]);
    const r = new Reservation(budget, 5, 60_000, 10);
    const slots = await Promise.all(Array.from({ length: 5 }, () => call(r)));
    expect(new Set(slots).size).toBe(5);
    // One script for the first three callers, not one each; one more for the two left over.
    expect(asked).toEqual([5, 2]);
  });
});
