import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { budgetKeys, peekBudget, RedisRateBudget } from '../jobs/redis-rate-budget.js';
import { plannedRequestCount } from '../src/extract/plan.js';
import { type RequestLogEntry, startSimulator } from '../src/simulator/index.js';
import { sleep } from '../src/util/time.js';
import { rateBudgetContract } from './helpers/rate-budget-contract.js';
import { redisClientsPerTest } from './helpers/redis-clients.js';
import { waitFor } from './helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const connect = redisClientsPerTest();

async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

rateBudgetContract('RedisRateBudget', {
  make: (opts) => new RedisRateBudget(connect(), { prefix: `test-${randomUUID()}`, ...opts }),
});

describe('RedisRateBudget', () => {
  const limit = { requests: 3, windowMs: 1000 };

  it('peek shows the slots in the window and the pause, and takes nothing', async () => {
    const b = new RedisRateBudget(connect(), { prefix: `test-${randomUUID()}` });
    for (let i = 0; i < 3; i++) await b.tryTake('a', limit);
    await b.tryTake('b', limit);
    expect(await b.peek('a', limit)).toEqual({ inWindow: 3, pausedForMs: 0 });
    // Peeking again finds the same: a peek takes no slot.
    expect(await b.peek('a', limit)).toEqual({ inWindow: 3, pausedForMs: 0 });
    expect((await b.peek('b', limit)).inWindow).toBe(1);
    await b.pause('b', Date.now() + 60_000);
    expect((await b.peek('b', limit)).pausedForMs).toBeGreaterThan(30_000);
    // A slot that is gone (or never was), settled, does not come back.
    const other = new RedisRateBudget(connect(), { prefix: `test-${randomUUID()}` });
    await other.settle('a', 'no-such-slot', limit);
    expect((await other.peek('a', limit)).inWindow).toBe(0);
  });

  it("reserves a job's calls in one step, as many as the window allows; refused jobs are told to come back one after another", async () => {
    const b = new RedisRateBudget(connect(), { prefix: `test-${randomUUID()}` });
    const five = { requests: 5, windowMs: 1000 };
    const first = await b.reserve('a', five, 3, 1000);
    const second = await b.reserve('a', five, 3, 1000);
    expect([first.slots.length, second.slots.length]).toEqual([3, 2]);
    expect((await b.peek('a', five)).inWindow).toBe(5);
    // Two more jobs of 3 calls, refused. The first comes back when a slot frees (the five were
    // reserved together and free together, a hold and a window from now); the second when a slot
    // frees after the three promised to the first: here the same moment, as five free at once.
    const asked = Date.now();
    const [r1, r2] = [await b.reserve('a', five, 3, 1000), await b.reserve('a', five, 3, 1000)];
    // The second was asked a little later: its wait, counted from then, may be that much shorter.
    const between = Date.now() - asked;
    expect([r1.slots.length, r2.slots.length]).toEqual([0, 0]);
    expect(r1.retryInMs).toBeGreaterThan(1000);
    expect(r1.retryInMs).toBeLessThanOrEqual(2001);
    expect(r2.retryInMs + between + 1).toBeGreaterThanOrEqual(r1.retryInMs);
    // A third is behind six promised calls: more than the five that free then, so a window later.
    const r3 = await b.reserve('a', five, 3, 1000);
    expect(r3.retryInMs - r1.retryInMs).toBeGreaterThanOrEqual(900);
    // Settled at once: used slots count from now, unused ones are given back.
    await b.settleMany('a', first.slots, second.slots, five);
    expect((await b.peek('a', five)).inWindow).toBe(3);
  });

  it('a job that used up its slots settles them and reserves more in one script', async () => {
    const redis = connect();
    const b = new RedisRateBudget(redis, { prefix: `test-${randomUUID()}` });
    const five = { requests: 5, windowMs: 1000 };
    // Four slots held for a minute: without the settle, none would free for a minute.
    const first = await b.reserve('a', five, 4, 60_000);
    // Commands this connection sends (the server's counters are shared with other test files).
    const sent: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      sent.push(command.name);
      return send(command, stream);
    };
    // Two were used and answered, two are given back: the window has one free slot plus the two
    // given back, so three of the four wanted are granted in the same step.
    const [used, unused] = [first.slots.slice(0, 2), first.slots.slice(2)];
    const next = await b.reserve('a', five, 4, 1000, { underWay: true, settle: { used, unused } });
    expect(sent).toEqual(['evalsha']);
    expect(next.slots).toHaveLength(3);
    // The two used ones count from the settle: they free a window from now, not in a minute.
    await sleep(1100);
    await b.settleMany('a', next.slots, [], five);
    expect((await b.peek('a', five)).inWindow).toBe(3);
  });

  const five = { requests: 5, windowMs: 1000 };
  /** A budget whose five slots are held for 1 to 5 s: they free about 2, 3, 4, 5 and 6 s from now,
   *  one a second, as a window sent over seconds does. */
  async function slotsFreeingOneASecond(): Promise<RedisRateBudget> {
    const b = new RedisRateBudget(connect(), { prefix: `test-${randomUUID()}` });
    for (let i = 1; i <= 5; i++) expect((await b.reserve('a', five, 1, i * 1000)).slots).toHaveLength(1);
    return b;
  }

  it('a refused job is told to come back when its first call can go, not when all of them can', async () => {
    const b = await slotsFreeingOneASecond();
    // A job of 3 calls: its first can go once the first slot frees (1 s hold + the window), about
    // 2 s from now; all three only after the third, about 4 s.
    const r = await b.reserve('a', five, 3, 1000);
    expect(r.slots).toHaveLength(0);
    expect(r.retryInMs).toBeGreaterThan(1500);
    expect(r.retryInMs).toBeLessThanOrEqual(2001);
  });

  it('a job already under way is not queued behind the calls promised to it: it takes the next slot that frees', async () => {
    const b = await slotsFreeingOneASecond();
    // A job of 3 calls is refused and promised the first three slots that free (about 2 s).
    const refused = await b.reserve('a', five, 3, 1000);
    expect(refused.retryInMs).toBeLessThanOrEqual(2001);
    // Back and under way, it has used what was free and asks for more: its next call can go
    // when the next slot frees (about 2 s), not after the three calls promised to itself (5 s).
    const more = await b.reserve('a', five, 2, 1000, { underWay: true });
    expect(more.slots).toHaveLength(0);
    expect(more.retryInMs).toBeGreaterThan(1500);
    expect(more.retryInMs).toBeLessThanOrEqual(2001);
    // Asking again promised nothing more: a new job still comes after the three promised calls
    // only (the fourth slot to free, about 5 s), not after five.
    const next = await b.reserve('a', five, 1, 1000);
    expect(next.retryInMs).toBeGreaterThan(4500);
    expect(next.retryInMs).toBeLessThanOrEqual(5001);
  });

  it('leaves no keys behind once the window and the pause are over', async () => {
    const redis = connect();
    const prefix = `test-${randomUUID()}`;
    const b = new RedisRateBudget(redis, { prefix });
    // Long enough that the keys are still there when first listed, even on a slow machine.
    const short = { requests: 2, windowMs: 1000 };
    const r = await b.tryTake('a', short);
    if (r.ok) await b.settle('a', r.slot, short);
    await b.pause('a', Date.now() + 1500);
    const k = budgetKeys(prefix, 'a');
    expect((await keysUnder(redis, prefix)).sort()).toEqual([k.pause, k.slots].sort());
    // Every key carries a TTL no longer than it needs.
    const slotsTtl = await redis.pttl(k.slots);
    expect(slotsTtl).toBeGreaterThan(0);
    expect(slotsTtl).toBeLessThanOrEqual(2 * short.windowMs);
    const pauseTtl = await redis.pttl(k.pause);
    expect(pauseTtl).toBeGreaterThan(0);
    expect(pauseTtl).toBeLessThanOrEqual(1501);
    let left: string[] = [];
    await waitFor(
      async () => {
        // EXISTS expires lazily, so a key past its TTL is gone now even if the active cycle lags.
        await redis.exists(k.slots, k.pause);
        left = await keysUnder(redis, prefix);
        return left.length === 0;
      },
      { what: () => `the budget's keys to expire; left: ${left.join(', ')}`, timeoutMs: 10_000 },
    );
  });

  it('an absurd pause (Retry-After 1e20 s) leaves a pause key that expires within the cap, and peek and other instances see it capped', async () => {
    const redis = connect();
    const prefix = `test-${randomUUID()}`;
    const cap = 60_000;
    const b = new RedisRateBudget(redis, { prefix, maxPauseMs: cap });
    const other = new RedisRateBudget(connect(), { prefix, maxPauseMs: cap });
    await b.pause('a', Date.now() + 1e20 * 1000);
    const ttl = await redis.pttl(budgetKeys(prefix, 'a').pause);
    expect(ttl).toBeGreaterThan(cap / 2);
    expect(ttl).toBeLessThanOrEqual(cap);
    const seen = await peekBudget(redis, prefix, 'a', limit);
    expect(seen.pausedForMs).toBeGreaterThan(cap / 2);
    expect(seen.pausedForMs).toBeLessThanOrEqual(cap);
    const r = await other.tryTake('a', limit);
    expect(!r.ok && r.retryInMs > cap / 2 && r.retryInMs <= cap).toBe(true);
  });

  it('a pause key left without expiry (by an older visync, "4e+26") neither holds the account forever nor overflows', async () => {
    const redis = connect();
    const prefix = `test-${randomUUID()}`;
    const k = budgetKeys(prefix, 'a');
    await redis.set(k.pause, '4e+26');
    const b = new RedisRateBudget(redis, { prefix });
    expect((await b.tryTake('a', limit)).ok).toBe(true);
    expect(await redis.exists(k.pause)).toBe(0);
    // Nor does a later pause keep it: the key it writes expires.
    await redis.set(k.pause, '4e+26');
    await b.pause('a', Date.now() + 2000);
    const ttl = await redis.pttl(k.pause);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
  });

  it('one pause is obeyed by every instance of the account', async () => {
    const prefix = `test-${randomUUID()}`;
    const setter = new RedisRateBudget(connect(), { prefix });
    const other = new RedisRateBudget(connect(), { prefix });
    const pauseMs = 300;
    await setter.pause('acme', Date.now() + pauseMs);
    let refusals = 0;
    await waitFor(
      async () => {
        const r = await other.tryTake('acme', limit);
        if (r.ok) return true;
        refusals++;
        expect(r.retryInMs).toBeGreaterThan(0);
        expect(r.retryInMs).toBeLessThanOrEqual(pauseMs + 50);
        return false;
      },
      { what: 'the pause set by another instance to end', intervalMs: 40 },
    );
    expect(refusals).toBeGreaterThan(0);
    // Granted only once the pause, as the server sees it, was over.
    expect((await peekBudget(connect(), prefix, 'acme', limit)).pausedForMs).toBe(0);
    // Other accounts were never paused.
    expect((await other.tryTake('other', limit)).ok).toBe(true);
  });
});

describe('RedisRateBudget across processes', () => {
  it('two worker processes of one account stay within the limit together', async () => {
    const sim = await startSimulator({
      accounts: [{ name: 'acme', workspaces: 6 }],
      // Two keys of one account: the upstream counts the account, whichever key calls.
      keysPerAccount: 2,
      limit: { requests: 10, windowMs: 500 },
      latencyMs: { min: 0, max: 10 },
    });
    cleanups.push(() => sim.close());
    const dir = mkdtempSync(join(tmpdir(), 'visync-budget-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const prefix = `test-${randomUUID()}`;
    const script = fileURLToPath(new URL('./fixtures/redis-budget-worker.ts', import.meta.url));
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const account = sim.accounts[0]!;

    const worker = (n: number) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], {
          cwd,
          env: {
            ...process.env,
            BUDGET_REDIS_URL: redisUrl,
            BUDGET_PREFIX: prefix,
            BUDGET_SIM_URL: sim.url,
            BUDGET_API_KEY: account.keys[n]!,
            BUDGET_ACCOUNT: 'acme',
            BUDGET_RUN_ID: `run-${n}`,
            BUDGET_DATA_DIR: join(dir, `w${n}`),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString('utf8');
        });
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString('utf8');
        });
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stdout, stderr }));
      });

    const results = await Promise.all([worker(0), worker(1)]);
    const plan = { visibilityDays: 3, buyerIntentDays: [7] };
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout.trim());
      expect(summary).toMatchObject({ error: null, workspaces: 6, failed: 0 });
      expect(summary.requests.rate_limited).toBe(0);
      expect(summary.requests.calls).toBe(plannedRequestCount(6, plan));
    }

    const entries = sim.log.filter((e: RequestLogEntry) => e.account === 'acme');
    expect(entries.filter((e) => e.status === 429)).toHaveLength(0);
    const accepted = entries.filter((e) => e.status !== 429).map((e) => e.at);
    expect(accepted).toHaveLength(2 * plannedRequestCount(6, plan));
    // Both keys (so both processes) really took part.
    expect(new Set(entries.map((e) => e.keyIndex))).toEqual(new Set([0, 1]));
    // No rolling 500 ms window, as the simulator counts it, ever held more than 10.
    accepted.sort((x, y) => x - y);
    let busiest = 0;
    let from = 0;
    for (let i = 0; i < accepted.length; i++) {
      while ((accepted[from] as number) <= (accepted[i] as number) - 500) from++;
      busiest = Math.max(busiest, i - from + 1);
    }
    expect(busiest).toBeLessThanOrEqual(10);
    // And the shared budget was really used up to its limit, not trivially under it.
    expect(busiest).toBeGreaterThan(5);
  });
});
