// A job's reservation settles its answered calls a few at a time when asked to, so that the early
// calls of a long job free for the account's next window as they would one by one: never a slot
// whose request is not answered yet, and the rest at the flush.
import { describe, expect, it } from 'vitest';
import { type RateLimit, type ReservableBudget, Reservation } from '../src/api/rate-budget.js';

const limit: RateLimit = { requests: 120, windowMs: 60_000 };

/** Grants what is asked and records each settle. */
function recordingBudget() {
  const settles: { used: string[]; unused: string[] }[] = [];
  let n = 0;
  const budget: ReservableBudget = {
    tryTake: async () => ({ ok: true, slot: String(++n) }),
    settle: async () => {},
    pause: async () => {},
    pausedFor: () => 0,
    reserve: async (_a, _l, wanted) => ({
      slots: Array.from({ length: wanted }, () => `s${++n}`),
      retryInMs: 0,
    }),
    settleMany: async (_a, used, unused) => {
      settles.push({ used: [...used], unused: [...unused] });
    },
  };
  return { budget, settles };
}

async function call(r: Reservation): Promise<string> {
  const t = await r.tryTake('acme', limit);
  if (!t.ok) throw new Error('no slot');
  return t.slot;
}

describe('a reservation settling every few answers', () => {
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
    expect(settles[1]?.used).toHaveLength(2);
    expect(settles[1]?.used[0]).toBe(later);
    // The 13 slots reserved and never taken are given back.
    expect(settles[1]?.unused).toHaveLength(13);
  });

  it('by default settles nothing before the flush', async () => {
    const { budget, settles } = recordingBudget();
    const r = new Reservation(budget, 12, 60_000);
    for (let i = 0; i < 12; i++) await r.settle('acme', await call(r));
    expect(settles).toEqual([]);
    await r.flush();
    expect(settles).toEqual([{ used: expect.any(Array), unused: [] }]);
    expect(settles[0]?.used).toHaveLength(12);
  });
});
