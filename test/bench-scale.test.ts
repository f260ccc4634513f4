// The pure parts of bench/scale.ts and its file-system probes: the sliding-window bound, the rate ratio of an account, and
// how a scenario's observations become the figures of bench/results/scale.json and its table.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSettling, fileCostUs, waitForFileSystem } from '../bench/lib/file-cost.js';
import { accountRates, rateRatio, windowBoundMs } from '../bench/lib/rate.js';
import { callsBetween } from '../bench/lib/redis-stats.js';
import { SCALE_TARGETS, type ScaleResult, scaleResult, scaleTable } from '../bench/lib/scale-report.js';
import { median } from '../bench/lib/stats.js';

const LIMIT = { requests: 120, windowMs: 60_000 };

/** `n` arrivals from `start`, `gapMs` apart. */
const evenly = (n: number, gapMs: number, start = 1_000_000) =>
  Array.from({ length: n }, (_, i) => start + i * gapMs);

describe('sliding-window bound', () => {
  it('lets the first window go at once, then one window per further 120 requests', () => {
    expect(windowBoundMs(0, LIMIT)).toBe(0);
    expect(windowBoundMs(1, LIMIT)).toBe(0);
    expect(windowBoundMs(120, LIMIT)).toBe(0);
    expect(windowBoundMs(121, LIMIT)).toBe(60_000);
    expect(windowBoundMs(162, LIMIT)).toBe(60_000);
    expect(windowBoundMs(240, LIMIT)).toBe(60_000);
    expect(windowBoundMs(241, LIMIT)).toBe(120_000);
  });
});

describe('rate ratio of an account', () => {
  it('is 1 when the last request arrives the moment the window allows it', () => {
    const times = [...evenly(120, 1), ...evenly(42, 1, 1_000_000 + 60_000)];
    expect(rateRatio(times, LIMIT)).toEqual({ span_ms: 60_041, bound_ms: 60_000, ratio: 60_000 / 60_041 });
  });

  it('falls as the span stretches past the bound, whatever the order of the arrivals', () => {
    const slow = evenly(162, 1000); // 161 s for what could take 60 s
    const r = rateRatio([...slow].reverse(), LIMIT);
    expect(r.span_ms).toBe(161_000);
    expect(r.ratio).toBeCloseTo(60 / 161, 6);
  });

  it('counts an account the limit never held back as 1, whatever its pace', () => {
    expect(rateRatio(evenly(120, 5000), LIMIT).ratio).toBe(1);
    expect(rateRatio([5], LIMIT).ratio).toBe(1);
    expect(rateRatio([], LIMIT).ratio).toBe(1);
  });

  it('judges the admitted requests: 429s and resets are counted apart and do not stretch the span', () => {
    const ok = evenly(121, 10).map((at) => ({ account: 'a', at, status: 200 }));
    const rejected = [
      { account: 'a', at: 2_000_000, status: 429 },
      { account: 'a', at: 2_000_001, status: 0 },
    ];
    const late = ok.map((e, i) => (i === 120 ? { ...e, at: ok[0]!.at + 60_000 } : e));
    const [a, b] = accountRates(
      [...late, ...rejected, { account: null, at: 1, status: 401 }],
      ['a', 'b'],
      LIMIT,
    );
    expect(a).toMatchObject({
      account: 'a',
      requests: 123,
      admitted: 121,
      status429: 1,
      bound_ms: 60_000,
      ratio: 1,
    });
    expect(b).toMatchObject({ account: 'b', requests: 0, admitted: 0, status429: 0, ratio: 1 });
  });
});

describe('scenario figures', () => {
  const rate = (account: string, requests: number, ratio: number, status429 = 0) => ({
    account,
    requests,
    admitted: requests - status429,
    status429,
    span_ms: 0,
    bound_ms: 0,
    ratio,
  });

  it('takes the median of an even count as the mean of the middle two', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([])).toBe(0);
  });

  it('gives exactly the promised fields, per request and over accounts and processes', () => {
    const r = scaleResult({
      workers: 2,
      accounts: 3,
      rates: [rate('a', 162, 0.9), rate('b', 162, 0.99, 2), rate('c', 162, 0.97)],
      redisConnectionsPerProcess: [7, 12],
      redisCommands: 972,
      workerCpuMs: 729,
      peakRssMb: 123.456,
      wallMs: 75_432,
    });
    expect(r).toEqual({
      workers: 2,
      accounts: 3,
      requests: 486,
      min_rate_ratio: 0.9,
      median_rate_ratio: 0.97,
      self_429: 2,
      redis_connections_per_process: 12,
      redis_cmds_per_request: 2,
      cpu_ms_per_request: 1.5,
      peak_rss_mb: 123.5,
      wall_s: 75.4,
    });
  });

  it("counts Redis calls between two snapshots less the observer's own, command by command", () => {
    const before = new Map([
      ['evalsha', 10],
      ['hmget', 5],
      ['info', 1],
    ]);
    const after = new Map([
      ['evalsha', 40],
      ['hmget', 25],
      ['info', 3],
      ['zadd', 7],
    ]);
    const own = new Map([
      ['hmget', 15],
      ['info', 2],
    ]);
    expect(callsBetween(before, after, own)).toEqual([
      ['evalsha', 30],
      ['zadd', 7],
      ['hmget', 5],
    ]);
  });

  const met: ScaleResult = {
    workers: 1,
    accounts: 500,
    requests: 81_000,
    min_rate_ratio: 0.96,
    median_rate_ratio: 0.99,
    self_429: 0,
    redis_connections_per_process: 8,
    redis_cmds_per_request: 6,
    cpu_ms_per_request: 1.5,
    peak_rss_mb: 400,
    wall_s: 70,
  };

  it('names each missed target, and judges peak RSS only at 500 accounts', () => {
    expect(SCALE_TARGETS.missed(met)).toEqual([]);
    expect(
      SCALE_TARGETS.missed({
        ...met,
        min_rate_ratio: 0.5,
        self_429: 1,
        redis_connections_per_process: 501,
        redis_cmds_per_request: 6.1,
        cpu_ms_per_request: 3,
        peak_rss_mb: 401,
      }),
    ).toEqual(['rate', '429', 'conns', 'cmds', 'CPU', 'RSS']);
    expect(SCALE_TARGETS.missed({ ...met, accounts: 100, peak_rss_mb: 900 })).toEqual([]);
  });

  it('renders one row per scenario and a targets row', () => {
    const lines = scaleTable([met, { ...met, workers: 2, min_rate_ratio: 0.5 }]).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^\| workers \| accounts \| requests \| min rate ratio \|/);
    expect(lines[2]).toContain('| 1 | 500 | 81000 | 0.960 |');
    expect(lines[2]).toMatch(/all met \|$/);
    expect(lines[3]).toMatch(/missed: rate \|$/);
    expect(lines[4]).toContain('| **target** |');
    expect(lines[4]).toContain('>= 0.95');
    expect(lines[4]).toContain('<= 400 at 500 accounts');
  });
});

describe('the data folder probes', () => {
  const withFolder = async (fn: (dir: string) => Promise<void>) => {
    const dir = mkdtempSync(join(tmpdir(), 'visync-file-cost-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('measures the cost of a landed file and leaves the files for the end of the bench', () =>
    withFolder(async (dir) => {
      const files = 200;
      // This process's CPU around the call: the figure is that CPU (in microseconds, what
      // process.cpuUsage counts) divided by the files made, less only the folder's creation.
      const before = process.cpuUsage();
      const us = fileCostUs(dir, files);
      const used = process.cpuUsage(before);
      const around = used.user + used.system;
      expect(Number.isInteger(us)).toBe(true);
      expect(us).toBeGreaterThan(0);
      // Per file, not for all of them (nor in ms or ns): us x files is the CPU of the loop, which
      // the CPU around the call holds (plus rounding to whole microseconds) and mostly is.
      expect(us * files).toBeLessThanOrEqual(around + files / 2);
      expect(us * files).toBeGreaterThanOrEqual(around / 2);
      // What was measured: each file written (3 KB), renamed into place, and left there.
      const [folder] = readdirSync(dir);
      const made = readdirSync(join(dir, folder as string)).sort();
      expect(made).toEqual(Array.from({ length: files }, (_, i) => `f${i}.json`).sort());
      expect(statSync(join(dir, folder as string, 'f0.json')).size).toBe(3000);
    }));

  it('does not wait when a file is cheap to create', () =>
    withFolder(async (dir) => {
      const s = await waitForFileSystem(dir, { settledUs: 1_000_000, everyMs: 10, maxMs: 1000, files: 5 });
      expect(s.waitedMs).toBe(0);
      expect(s.lastUs).toBe(s.firstUs);
      expect(describeSettling(s)).toBe('');
    }));

  it('waits for a file system that stays dear at most maxMs, then goes on', () =>
    withFolder(async (dir) => {
      const s = await waitForFileSystem(dir, { settledUs: 0, everyMs: 10, maxMs: 50, files: 5 });
      expect(s.waitedMs).toBe(50);
      // Measured again after each pause: once at first, then five times.
      expect(readdirSync(dir).filter((n) => n.startsWith('create-cost-'))).toHaveLength(6);
      expect(describeSettling(s)).toMatch(
        /^waited 0 s for the data folder's file system to settle \(\d+ -> \d+ us/,
      );
    }));
});
