// What every RateBudget promises the client (src/api/rate-budget.ts), whatever keeps the count:
// registered once per implementation (test/rate-budget.test.ts: memory, test/redis-rate-budget.test.ts:
// Redis). Time passes for real (Redis counts on its server clock); a test waits for the budget's
// own answer to change, never for a fixed time, and durations are long enough that a slow machine
// cannot flip an outcome.
import { describe, expect, it } from 'vitest';
import { acquireSlot, BudgetWaitTooLong, type RateBudget } from '../../src/api/rate-budget.js';
import { waitFor } from './wait-for.js';

export interface RateBudgetUnderTest {
  /** A budget with no account used yet (its own key prefix, for Redis), pausing for at most `maxPauseMs`. */
  make(opts?: { maxPauseMs?: number }): RateBudget | Promise<RateBudget>;
}

/** Ms elapsed since `start` (performance.now()), rounded up, plus 1 for Date.now()'s granularity. */
const since = (start: number) => Math.ceil(performance.now() - start) + 1;

export function rateBudgetContract(name: string, subject: RateBudgetUnderTest): void {
  describe(`${name}: the RateBudget contract`, () => {
    const limit = { requests: 3, windowMs: 1000 };

    it('grants the limit, then refuses with a retryInMs inside the window; accounts are independent', async () => {
      const b = await subject.make();
      const slots = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const r = await b.tryTake('a', limit);
        expect(r.ok).toBe(true);
        if (r.ok) slots.add(r.slot);
      }
      expect(slots.size).toBe(3);
      const refused = await b.tryTake('a', limit);
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.retryInMs).toBeGreaterThan(0);
        expect(refused.retryInMs).toBeLessThanOrEqual(limit.windowMs + 1);
      }
      expect((await b.tryTake('b', limit)).ok).toBe(true);
      // Waiting as told is enough: a new slot comes back.
      const { slot } = await acquireSlot(b, 'a', limit);
      expect(slots.has(slot)).toBe(false);
    });

    it('counts a slot from when its request was answered (settle), not from when it was sent', async () => {
      const b = await subject.make();
      const slots: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await b.tryTake('a', limit);
        if (r.ok) slots.push(r.slot);
      }
      expect(slots).toHaveLength(3);
      // Half the window passes, as the budget sees it: counted from the sends, the slots free soon.
      await waitFor(
        async () => {
          const r = await b.tryTake('a', limit);
          return !r.ok && r.retryInMs <= limit.windowMs / 2;
        },
        { what: 'half the window to pass', intervalMs: 20 },
      );
      const beforeSettle = performance.now();
      for (const s of slots) await b.settle('a', s, limit);
      const r = await b.tryTake('a', limit);
      expect(r.ok).toBe(false);
      // Counted from the answers they free a whole window after the settle, minus only what has
      // elapsed since (from the sends: at most half a window minus that).
      if (!r.ok) expect(r.retryInMs).toBeGreaterThanOrEqual(limit.windowMs - since(beforeSettle));
    });

    it('settling a slot that is gone (or never was) takes nothing from the budget', async () => {
      const b = await subject.make();
      await b.settle('a', 'no-such-slot', limit);
      for (let i = 0; i < 3; i++) expect((await b.tryTake('a', limit)).ok).toBe(true);
    });

    it('pauses an account until the given time, never shortens a pause, and a longer one extends it', async () => {
      const b = await subject.make();
      const minute = 60_000;
      await b.pause('a', Date.now() + minute);
      await b.pause('a', Date.now() + 10);
      const r = await b.tryTake('a', limit);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.retryInMs).toBeGreaterThan(minute / 2);
        // Never early; Redis rounds both conversions (to its clock, back to ms) up.
        expect(r.retryInMs).toBeLessThanOrEqual(minute + 2);
      }
      // Other accounts are not paused.
      expect((await b.tryTake('b', limit)).ok).toBe(true);
      await b.pause('a', Date.now() + 2 * minute);
      const longer = await b.tryTake('a', limit);
      expect(!longer.ok && longer.retryInMs > minute).toBe(true);
      // A pause in the past is no pause.
      await b.pause('c', Date.now() - 1000);
      expect((await b.tryTake('c', limit)).ok).toBe(true);
    });

    it('caps every pause, however absurd (1e20 s, a year 9999 date, Infinity): the wait stays positive, within the cap, and acquireSlot still keeps to its deadline', async () => {
      const cap = 60_000;
      const b = await subject.make({ maxPauseMs: cap });
      await b.pause('a', Date.now() + 1e20 * 1000);
      await b.pause('b', Date.parse('9999-12-31T23:59:59Z'));
      await b.pause('c', Number.POSITIVE_INFINITY);
      for (const account of ['a', 'b', 'c']) {
        const r = await b.tryTake(account, limit);
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.retryInMs).toBeGreaterThan(cap / 2);
          expect(r.retryInMs).toBeLessThanOrEqual(cap + 2);
        }
        await expect(acquireSlot(b, account, limit, { deadlineAt: Date.now() + 1000 })).rejects.toMatchObject(
          {
            pastDeadline: true,
          },
        );
        await expect(acquireSlot(b, account, limit, { maxWaitMs: 100 })).rejects.toBeInstanceOf(
          BudgetWaitTooLong,
        );
      }
    });

    it('acquireSlot refuses to wait longer than maxWaitMs, or past the deadline', async () => {
      const b = await subject.make();
      await b.pause('a', Date.now() + 60_000);
      await expect(acquireSlot(b, 'a', limit, { maxWaitMs: 100 })).rejects.toBeInstanceOf(BudgetWaitTooLong);
      await expect(acquireSlot(b, 'a', limit, { deadlineAt: Date.now() + 1000 })).rejects.toMatchObject({
        pastDeadline: true,
      });
    });
  });
}
