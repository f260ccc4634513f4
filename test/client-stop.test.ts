// A run's stop that comes while a call's answer is half read: the call ends with the stop, it does
// not wait forever. Between an answer's headers and its body the client settles the request's slot
// with the budget (a Redis round trip for a worker's or a shared `run --once`'s); a key refused by
// another workspace's call aborts the run's signal meanwhile, and the body is destroyed before
// anything listens to it. Seen as an inline run under a revoked key that never returned.
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../src/api/client.js';
import { meCall } from '../src/api/endpoints.js';
import { MemoryRateBudget, type RateLimit } from '../src/api/rate-budget.js';
import { sim } from './helpers/harness.js';

/** A budget whose settle (the step after an answer's headers) aborts the run first, as a stop would. */
class StopOnSettle extends MemoryRateBudget {
  constructor(private readonly stop: AbortController) {
    super();
  }

  override async settle(account: string, slot: string, limit: RateLimit): Promise<void> {
    this.stop.abort(new Error('the account stopped: its key was refused'));
    // The round trip a shared budget takes: the aborted body is destroyed meanwhile.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    return super.settle(account, slot, limit);
  }
}

describe('a stop between an answer and its body', () => {
  it('ends the call with the stop', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const stop = new AbortController();
    const client = new ApiClient({
      account: 'acme',
      baseUrl: s.url,
      apiKey: s.accounts[0]!.keys[0]!,
      budget: new StopOnSettle(stop),
      limit: { requests: 100, windowMs: 60_000 },
      signal: stop.signal,
    });
    await expect(client.get(meCall)).rejects.toThrow('the account stopped: its key was refused');
  });
});
