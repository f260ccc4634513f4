// The figures of bench/scale.ts from what it observed, its targets, and its markdown table: pure,
// so test/bench-scale.test.ts checks them without processes.
import type { AccountRate } from './rate.js';
import { markdownTable, median, round } from './stats.js';

/** One scenario, exactly the fields bench/results/scale.json promises. */
export interface ScaleResult {
  workers: number;
  accounts: number;
  requests: number;
  min_rate_ratio: number;
  median_rate_ratio: number;
  self_429: number;
  redis_connections_per_process: number;
  redis_cmds_per_request: number;
  cpu_ms_per_request: number;
  peak_rss_mb: number;
  wall_s: number;
}

/** What a scenario observed. */
export interface ScenarioMeasures {
  workers: number;
  accounts: number;
  rates: readonly AccountRate[];
  /** Per worker process: the most Redis connections it held at once. */
  redisConnectionsPerProcess: readonly number[];
  /** Commands Redis ran for the system under test (the bench's own taken out). */
  redisCommands: number;
  /** CPU of all worker processes together. */
  workerCpuMs: number;
  peakRssMb: number;
  wallMs: number;
}

export function scaleResult(m: ScenarioMeasures): ScaleResult {
  const requests = m.rates.reduce((n, r) => n + r.requests, 0);
  const perRequest = (x: number) => x / Math.max(1, requests);
  const ratios = m.rates.map((r) => r.ratio);
  return {
    workers: m.workers,
    accounts: m.accounts,
    requests,
    min_rate_ratio: round(ratios.length ? Math.min(...ratios) : 0, 3),
    median_rate_ratio: round(median(ratios), 3),
    self_429: m.rates.reduce((n, r) => n + r.status429, 0),
    redis_connections_per_process: Math.max(0, ...m.redisConnectionsPerProcess),
    redis_cmds_per_request: round(perRequest(m.redisCommands), 2),
    cpu_ms_per_request: round(perRequest(m.workerCpuMs), 3),
    peak_rss_mb: round(m.peakRssMb, 1),
    wall_s: round(m.wallMs / 1000, 1),
  };
}

/** The targets; peak RSS is judged at 500 accounts (and beyond). */
export const SCALE_TARGETS = {
  minRateRatio: 0.95,
  self429: 0,
  connectionsPerProcess: 8,
  cmdsPerRequest: 6,
  cpuMsPerRequest: 1.5,
  peakRssMb: 400,
  peakRssFromAccounts: 500,
  /** Names of the targets `r` misses. */
  missed(r: ScaleResult): string[] {
    const out: string[] = [];
    if (r.min_rate_ratio < this.minRateRatio) out.push('rate');
    if (r.self_429 > this.self429) out.push('429');
    if (r.redis_connections_per_process > this.connectionsPerProcess) out.push('conns');
    if (r.redis_cmds_per_request > this.cmdsPerRequest) out.push('cmds');
    if (r.cpu_ms_per_request > this.cpuMsPerRequest) out.push('CPU');
    if (r.accounts >= this.peakRssFromAccounts && r.peak_rss_mb > this.peakRssMb) out.push('RSS');
    return out;
  },
};

export function scaleTable(results: readonly ScaleResult[]): string {
  const t = SCALE_TARGETS;
  const rows = results.map((r) => {
    const missed = t.missed(r);
    return [
      r.workers,
      r.accounts,
      r.requests,
      r.min_rate_ratio.toFixed(3),
      r.median_rate_ratio.toFixed(3),
      r.self_429,
      r.redis_connections_per_process,
      r.redis_cmds_per_request.toFixed(2),
      r.cpu_ms_per_request.toFixed(2),
      r.peak_rss_mb.toFixed(0),
      r.wall_s.toFixed(1),
      missed.length ? `missed: ${missed.join(', ')}` : 'all met',
    ];
  });
  rows.push([
    '**target**',
    '',
    '',
    `>= ${t.minRateRatio}`,
    '',
    t.self429,
    `<= ${t.connectionsPerProcess}`,
    `<= ${t.cmdsPerRequest}`,
    `<= ${t.cpuMsPerRequest}`,
    `<= ${t.peakRssMb} at ${t.peakRssFromAccounts} accounts`,
    '',
    '',
  ]);
  return markdownTable(
    [
      'workers',
      'accounts',
      'requests',
      'min rate ratio',
      'median rate ratio',
      'self 429',
      'Redis conns/process',
      'Redis cmds/req',
      'CPU ms/req',
      'peak RSS MB',
      'wall s',
      'targets',
    ],
    rows,
  );
}
