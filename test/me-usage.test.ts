// run --once without Redis keeps the whole account under its limit, not only its own requests:
// the requests GET /me reports as used in the current window (another process, another tool on
// the same account) count as spent, so they cause no 429. Counted from the simulator's own log.
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { MemoryRateBudget } from '../src/api/rate-budget.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { configFor, memoryLogger, sim, tempDir } from './helpers/harness.js';

describe('the usage GET /me reports', () => {
  it('counts as spent: a run after another process used most of the window gets no 429', async () => {
    // A compressed window; the run makes 16 calls (/me, /brands, 7 per workspace).
    const limit = { requests: 30, windowMs: 2000 };
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2, limit }] });
    const key = s.accounts[0]!.keys[0]!;
    // Another process of the account: 24 requests just before the run, in the same window.
    for (let i = 0; i < 24; i++) {
      const res = await request(`${s.url}/me`, { headers: { authorization: `Bearer ${key}` } });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
    }
    const dir = tempDir();
    const { manifests } = await runInline({
      config: configFor(s, dir, { accounts: { acme: { rateWindowSeconds: limit.windowMs / 1000 } } }),
      store: new FsObjectStore(dir),
      logger: memoryLogger('silent').logger,
      budget: new MemoryRateBudget(),
    });
    expect(manifests[0]!.status).toBe('succeeded');
    expect(s.log.filter((e) => e.status === 429)).toHaveLength(0);
    expect(manifests[0]!.requests.rate_limited).toBe(0);
  });

  it('two run --once processes one after the other (each its own budget) draw no 429 together', async () => {
    // 16 calls each, 30 allowed per window: together they need two windows.
    const limit = { requests: 30, windowMs: 3000 };
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2, limit }] });
    const dir = tempDir();
    const config = configFor(s, dir, { accounts: { acme: { rateWindowSeconds: limit.windowMs / 1000 } } });
    const runOnce = async () =>
      (
        await runInline({
          config,
          store: new FsObjectStore(dir),
          logger: memoryLogger('silent').logger,
          budget: new MemoryRateBudget(),
        })
      ).manifests[0]!;
    expect((await runOnce()).status).toBe('succeeded');
    expect((await runOnce()).status).toBe('succeeded');
    expect(s.log.filter((e) => e.status === 429)).toHaveLength(0);
    expect(s.log.filter((e) => e.status === 200)).toHaveLength(32);
  });
});
