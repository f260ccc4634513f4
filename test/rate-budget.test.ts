// The in-process budget of run --once, held to the contract every budget keeps.
import { describe, expect, it } from 'vitest';
import { MemoryRateBudget } from '../src/api/rate-budget.js';
import { rateBudgetContract } from './helpers/rate-budget-contract.js';

rateBudgetContract('MemoryRateBudget', { make: (opts) => new MemoryRateBudget(opts) });

describe('MemoryRateBudget.spentElsewhere', () => {
  it('counts the requests /me reports beyond its own as spent now, up to the limit, never twice', async () => {
    const b = new MemoryRateBudget();
    const limit = { requests: 5, windowMs: 60_000 };
    expect((await b.tryTake('a', limit)).ok).toBe(true);
    // /me counted this process's request too: 4 reported, 3 made by others.
    await b.spentElsewhere('a', 4, limit);
    await b.spentElsewhere('a', 4, limit);
    expect((await b.tryTake('a', limit)).ok).toBe(true);
    const refused = await b.tryTake('a', limit);
    expect(!refused.ok && refused.retryInMs > limit.windowMs / 2).toBe(true);
    // Another account is not touched; a report beyond the limit fills it, no more.
    await b.spentElsewhere('b', 1000, limit);
    expect((await b.tryTake('b', limit)).ok).toBe(false);
  });
});
