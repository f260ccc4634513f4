import { describe, expect, it } from 'vitest';
import { acquireSlot, BudgetWaitTooLong, MemoryRateBudget } from '../src/api/rate-budget.js';

describe('MemoryRateBudget', () => {
  const limit = { requests: 3, windowMs: 200 };

  it('grants the limit, then says how long until a slot frees', async () => {
    const b = new MemoryRateBudget();
    for (let i = 0; i < 3; i++) expect((await b.tryTake('a', limit)).ok).toBe(true);
    const refused = await b.tryTake('a', limit);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.retryInMs).toBeGreaterThan(0);
      expect(refused.retryInMs).toBeLessThanOrEqual(201);
    }
    // Another account has its own budget.
    expect((await b.tryTake('b', limit)).ok).toBe(true);
  });

  it('counts a slot from when its request was answered', async () => {
    // Wide margins so a loaded machine cannot flip the outcome: a 2 s window, answers 1.2 s after
    // sending, the check 2.1 s after sending (past send + window, well before answer + window).
    const wide = { requests: 3, windowMs: 2000 };
    const b = new MemoryRateBudget();
    const sent = Date.now();
    const slots: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await b.tryTake('a', wide);
      if (r.ok) slots.push(r.slot);
    }
    expect(slots).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 1200));
    for (const s of slots) await b.settle('a', s, wide);
    await new Promise((r) => setTimeout(r, Math.max(0, sent + 2100 - Date.now())));
    const r = await b.tryTake('a', wide);
    expect(r.ok).toBe(false);
    // It frees a window after the answers, not after the sends.
    if (!r.ok) expect(r.retryInMs).toBeGreaterThan(500);
  });

  it('pauses an account until the given time, and never shortens a pause', async () => {
    const b = new MemoryRateBudget();
    await b.pause('a', Date.now() + 1000);
    await b.pause('a', Date.now() + 10);
    const r = await b.tryTake('a', limit);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.retryInMs).toBeGreaterThan(900);
    expect((await b.tryTake('b', limit)).ok).toBe(true);
  });

  it('acquireSlot refuses to sleep longer than maxWaitMs', async () => {
    const b = new MemoryRateBudget();
    await b.pause('a', Date.now() + 5000);
    await expect(acquireSlot(b, 'a', limit, { maxWaitMs: 100 })).rejects.toBeInstanceOf(BudgetWaitTooLong);
  });
});
