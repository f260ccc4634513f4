// A Retry-After the run cannot honour (absurd, a year, a date in year 9999, or past the run's
// deadline), on a 429 or on a 503, through the real CLI with and without Redis: the account is
// paused for at most extract.maxPauseSeconds, the run ends at once in one line naming when the
// account may be called again, and a later run during the pause ends at once with the same line,
// calling nothing. Also: drift gets one summary line in the log of each run.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { describe, expect, inject, it } from 'vitest';
import { budgetKeys } from '../jobs/redis-rate-budget.js';
import type { RawEndpoint } from '../src/api/endpoints.js';
import type { Manifest } from '../src/records/manifest.js';
import { runInline } from '../src/run/inline/run-inline.js';
import type { Simulator } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import {
  type ConfigOverrides,
  configFor,
  listFiles,
  memoryLogger,
  readText,
  runOnceCli,
  sim,
  tempDir,
} from './helpers/harness.js';

const CAP_S = 600;

/** The time a refusal line names, checked to be a whole-second UTC instant. */
function namedTime(line: string): number {
  const m = /the account may be called again after (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/.exec(line);
  expect(m, line).not.toBeNull();
  return Date.parse(m![1]!);
}

function manifests(dir: string): Manifest[] {
  return listFiles(dir)
    .filter((f) => f.endsWith('manifest.json'))
    .map((f) => JSON.parse(readText(dir, f)) as Manifest)
    .sort((a, b) => a.started_at.localeCompare(b.started_at));
}

/**
 * One call of acme meets `fault`; two runs of `run --once` follow. The first ends failed in one
 * stderr line naming a time within the cap; the second ends the same way, calling nothing.
 */
async function refusedTwice(s: Simulator, o: ConfigOverrides) {
  const dir = tempDir();
  const overrides = { ...o, extract: { maxPauseSeconds: CAP_S, ...o.extract } };
  const before = Date.now();
  const first = await runOnceCli(s, dir, [], overrides);
  const after = Date.now();
  expect(first.code).toBe(1);
  expect(first.err).toHaveLength(1);
  const line = first.err[0]!;
  const until = namedTime(line);
  expect(until).toBeGreaterThanOrEqual(before + CAP_S * 1000 - 1000);
  expect(until).toBeLessThanOrEqual(after + CAP_S * 1000 + 1000);
  expect(line).not.toMatch(/lower requestsPerMinute/);
  const [m1] = manifests(dir);
  expect(m1?.status).toBe('failed');
  // Stored without the account; the printed line names it once (src/records/error-code.ts).
  expect(`visync: ${m1?.account}: ${m1?.error}`).toBe(line);
  expect(Date.parse(m1?.rate_limited_until ?? '')).toBe(until);

  const calls = s.log.length;
  const second = await runOnceCli(s, dir, [], overrides);
  expect(second.code).toBe(1);
  expect(second.err).toEqual([line]);
  expect(s.log.length).toBe(calls);
  const m2 = manifests(dir)[1];
  expect(m2?.error).toBe(m1?.error);
  expect(m2?.rate_limited_until).toBe(m1?.rate_limited_until);
  return { dir, line, until };
}

/** acme with `workspaces` workspaces, whose first call of `endpoint` answers `status` with `retryAfter`. */
async function simAnswering(
  endpoint: RawEndpoint,
  status: number,
  retryAfter: string | number,
  workspaces = 3,
): Promise<Simulator> {
  const s = await sim({ accounts: [{ name: 'acme', workspaces }] });
  s.addFault({ account: 'acme', endpoint, kind: 'status', status, retryAfter });
  return s;
}

describe('a Retry-After the run will not wait for', () => {
  it('429 with Retry-After: 99999999999999999999, no Redis: the run ends at once in one line with the time, and so does the next', async () => {
    const s = await simAnswering('visibility', 429, '99999999999999999999');
    const { line } = await refusedTwice(s, {});
    expect(line).toMatch(/-> 429: rate limited: /);
    expect(s.log.filter((e) => e.status === 429)).toHaveLength(1);
  });

  it('429 with Retry-After in year 9999, Redis configured: the pause key expires within the cap, and the next run ends at once', async () => {
    const s = await simAnswering('brands', 429, 'Fri, 31 Dec 9999 23:59:59 GMT');
    const prefix = `pc-${randomUUID().slice(0, 8)}`;
    const { until } = await refusedTwice(s, { top: { redis: { url: inject('redisUrl'), prefix } } });
    const redis = new Redis(inject('redisUrl'));
    try {
      const ttl = await redis.pttl(budgetKeys(prefix, 'acme').pause);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(CAP_S * 1000);
      expect(Math.abs(Date.now() + ttl - until)).toBeLessThan(2000);
    } finally {
      await redis.quit();
    }
  });

  it('workspaces landed before the refused pause stay good: the run is partial (exit 2), still in one line', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    const last = s.accounts[0]!.workspaceIds[2]!;
    s.addFault({ brandId: last, endpoint: 'prompts', kind: 'status', status: 429, retryAfter: 31536000 });
    const dir = tempDir();
    const r = await runOnceCli(s, dir, [], { extract: { concurrency: 1, maxPauseSeconds: CAP_S } });
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    namedTime(r.err[0]!);
    const [m] = manifests(dir);
    expect(m?.status).toBe('partial');
    expect(m?.workspaces.filter((w) => w.status === 'succeeded')).toHaveLength(2);
  });

  it('503 with Retry-After: 86400 names the 503, not a 429, and gives no advice to lower requestsPerMinute', async () => {
    const s = await simAnswering('prompts', 503, 86400, 2);
    const { line } = await refusedTwice(s, {});
    expect(line).toMatch(/-> 503/);
    expect(line).toMatch(/Retry-After: 86400/);
    expect(line).not.toMatch(/429/);
  });

  it('a 503 whose Retry-After fits the cap but not the run deadline names the 503 and the deadline', async () => {
    const s = await simAnswering('prompts', 503, 300, 2);
    const dir = tempDir();
    const r = await runOnceCli(s, dir, [], { top: { jobs: { maxRunHours: 0.01 } } });
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/-> 503/);
    expect(r.err[0]).toMatch(/run deadline of 0\.01 h \(jobs\.maxRunHours\)/);
    expect(r.err[0]).not.toMatch(/429|lower requestsPerMinute/);
    namedTime(r.err[0]!);
  });
});

describe('drift in the log', () => {
  it('a run with drift logs one summary line naming the findings; a run without logs none', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const run = (logger: Logger) =>
      runInline({ config: configFor(s, dir), store: new FsObjectStore(dir), logger });
    const summaries = (lines: string[]) =>
      lines.map((l) => JSON.parse(l) as { msg: string; drift?: number }).filter((l) => /drift/.test(l.msg));

    const clean = memoryLogger('info');
    await run(clean.logger);
    expect(summaries(clean.lines)).toEqual([]);

    s.addFault({
      account: 'acme',
      endpoint: 'prompts',
      kind: 'extra-fields',
      times: Number.POSITIVE_INFINITY,
    });
    const drifted = memoryLogger('info');
    const { manifests: ms } = await run(drifted.logger);
    expect(ms[0]!.drift.length).toBeGreaterThan(0);
    const lines = summaries(drifted.lines);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toMatch(/unknown_field/);
    expect(lines[0]!.msg).toMatch(/prompts/);
  });
});
