// Throughput of `visync worker` processes against one shared, rate-limited budget per account.
//   npm run bench [-- --workers 1,2,4 --accounts 1,4 --workspaces 50,200,500 --concurrency 8]
// Per scenario: the simulator (in this process) with a compressed window (120 requests per 2 s per
// account), a private redis-server (or $REDIS_URL, with a unique key prefix per scenario), P real
// worker processes spawned through the bin, one `sync` run enqueued per account; then the
// simulator's arrival log says how close to the limit we got, how many 429s our own traffic caused
// (no faults are scripted, so every 429 is self-caused) and where the time went.
// Results: stdout, bench/results/workers.json and bench/results/workers.md.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { JOB } from '../jobs/definitions.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { openJobsClient } from '../jobs/jobs-client.js';
import type { LedgerRun } from '../jobs/ledger.js';
import { parseConfig } from '../src/config/read-config.js';
import { plannedRequestCount } from '../src/extract/plan.js';
import { isFinishedStatus } from '../src/records/run-state.js';
import { peakInWindow, type RequestLogEntry, startSimulator } from '../src/simulator/index.js';
import { DEV_BIN as BIN } from '../test/helpers/cli-bin.js';
import { startPrivateRedis } from '../test/helpers/redis-server.js';
import { CleanupStack } from './lib/cleanup.js';
import { countList } from './lib/flags.js';
import { type CliProcess, sleep, spawnCli, stopChild, waitForOutput } from './lib/processes.js';
import { windowBoundMs } from './lib/rate.js';
import { callsBetween, commandStats, deletePrefix } from './lib/redis-stats.js';
import { quantile, round } from './lib/stats.js';
import { CLK_TCK, cpuMs, peakRssMb } from './proc-stats.js';

const LIMIT = 120;
const WINDOW_MS = 2000;
const RATE = LIMIT / (WINDOW_MS / 1000); // requests per second
const PLAN = { visibilityDays: 7, buyerIntentDays: [7, 30, 90] };
const TARGETS = { rateRatio: 0.95, selfCaused429: 0, fourVsOne: 1.1 };

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '1,2,4' },
    accounts: { type: 'string', default: '1,4' },
    workspaces: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '8' },
    latency: { type: 'string', default: '5-20' },
  },
});
const workerCounts = countList('workers', values.workers);
const accountCounts = countList('accounts', values.accounts);
const workspaceCounts = countList('workspaces', values.workspaces);
const [concurrency] = countList('concurrency', values.concurrency);
const [latMin, latMax] = (values.latency ?? '').split('-').map(Number);
if (!Number.isFinite(latMin) || !Number.isFinite(latMax ?? latMin))
  throw new Error(`--latency: expected MIN-MAX in ms, e.g. 5-20, got "${values.latency}"`);
const latency = { min: latMin as number, max: (latMax ?? latMin) as number };

const RESULTS = new URL('./results/', import.meta.url).pathname;

const cleanups = new CleanupStack();
cleanups.onSignals();

/** A private redis-server (as the test suite uses), unless REDIS_URL is set. */
async function startRedis(): Promise<string> {
  if (process.env.REDIS_URL) return process.env.REDIS_URL;
  const redis = await startPrivateRedis();
  cleanups.defer(() => redis.stop());
  return redis.url;
}

function spawnWorker(configPath: string, env: Record<string, string>): CliProcess {
  return spawnCli(
    BIN,
    ['--config', configPath, 'worker', '--concurrency', String(concurrency), '--log-level', 'warn'],
    env,
  );
}

const waitReady = (w: CliProcess) => waitForOutput(w, 'visync worker ready', 60_000, 'worker');

interface AccountResult {
  account: string;
  requests: number;
  planned: number;
  status429: number;
  other_errors: number;
  span_s: number;
  /** Requests / span / (limit / window): the brief's definition. */
  rate_ratio: number;
  /** floor((requests - 1) / limit) * window: the earliest the last request can arrive under a sliding window. */
  bound_s: number;
  /** (requests - limit) / rate: the looser bound (a smooth stream after a free first window). */
  bound_smooth_s: number;
  span_over_bound: number;
  peak_in_window: number;
  /** For request i >= limit: arrival(i) - arrival(i - limit) - window. How long a freed slot sat unused. */
  slot_idle_ms: { mean: number; p50: number; p90: number; max: number };
  start_lag_s: number;
  tail_s: number;
  run_wall_s: number;
  /** Admitted requests per second of the run, from enqueue (60 = the limit). */
  per_second: number[];
  ledger: Pick<LedgerRun, 'status' | 'calls' | 'rate_limited' | 'retries' | 'waited_ms'>;
}

interface ScenarioResult {
  workers: number;
  accounts: number;
  workspaces: number;
  concurrency: number;
  requests: number;
  status429: number;
  min_rate_ratio: number;
  max_span_over_bound: number;
  run_wall_s: number;
  run_wall_over_bound: number;
  four_vs_one?: number;
  cpu_ms_per_request: number;
  cpu_ms_startup: number;
  peak_rss_mb: number;
  workspace_jobs: number;
  /** Extra pickups of workspace jobs: each is a job that stepped aside (budget delay) or was retried. */
  job_repickups: number;
  run_job_repickups: number;
  redis_evalsha_per_request: number;
  redis_commands_per_request: number;
  /** The busiest Redis commands during the runs, calls per request. */
  redis_top_commands: Record<string, number>;
  forced_stops: number;
  bench_process_cpu_ms: number;
  per_account: AccountResult[];
}

function analyseAccount(
  log: RequestLogEntry[],
  account: string,
  workspaces: number,
  enqueuedAt: number,
  run: LedgerRun,
): AccountResult {
  const mine = log.filter((e) => e.account === account).sort((a, b) => a.at - b.at);
  const admitted = mine.filter((e) => e.status !== 429 && e.status !== 0).map((e) => e.at);
  const first = mine[0]?.at ?? enqueuedAt;
  const last = mine[mine.length - 1]?.at ?? enqueuedAt;
  const span = (last - first) / 1000;
  const n = mine.length;
  const idle: number[] = [];
  for (let i = LIMIT; i < admitted.length; i++) {
    idle.push((admitted[i] as number) - (admitted[i - LIMIT] as number) - WINDOW_MS);
  }
  const perSecond: number[] = [];
  for (const t of admitted) {
    const b = Math.max(0, Math.floor((t - enqueuedAt) / 1000));
    while (perSecond.length <= b) perSecond.push(0);
    perSecond[b] = (perSecond[b] as number) + 1;
  }
  const bound = windowBoundMs(n, { requests: LIMIT, windowMs: WINDOW_MS }) / 1000;
  const finished = run.finished_at ? Date.parse(run.finished_at) : Date.now();
  return {
    account,
    requests: n,
    planned: plannedRequestCount(workspaces, PLAN),
    status429: mine.filter((e) => e.status === 429).length,
    other_errors: mine.filter((e) => e.status !== 429 && (e.status === 0 || e.status >= 400)).length,
    span_s: round(span, 3),
    rate_ratio: round(span > 0 ? n / span / RATE : 0, 3),
    bound_s: bound,
    bound_smooth_s: round(Math.max(0, n - LIMIT) / RATE, 3),
    span_over_bound: round(bound > 0 ? span / bound : 0, 3),
    peak_in_window: peakInWindow(log, account, WINDOW_MS),
    slot_idle_ms: {
      mean: round(idle.reduce((a, b) => a + b, 0) / Math.max(1, idle.length), 1),
      p50: round(quantile(idle, 0.5), 1),
      p90: round(quantile(idle, 0.9), 1),
      max: round(quantile(idle, 1), 1),
    },
    start_lag_s: round((first - enqueuedAt) / 1000, 3),
    tail_s: round((finished - last) / 1000, 3),
    run_wall_s: round((finished - enqueuedAt) / 1000, 3),
    per_second: perSecond,
    ledger: {
      status: run.status,
      calls: run.calls,
      rate_limited: run.rate_limited,
      retries: run.retries,
      waited_ms: run.waited_ms,
    },
  };
}

async function runScenario(
  redisUrl: string,
  admin: Redis,
  P: number,
  A: number,
  W: number,
): Promise<ScenarioResult> {
  const benchCpu = process.cpuUsage();
  return cleanups.scope(async (defer) => {
    const sim = await startSimulator({
      seed: 7,
      accounts: Array.from({ length: A }, (_, i) => ({ name: `acct-${i + 1}`, workspaces: W })),
      limit: { requests: LIMIT, windowMs: WINDOW_MS },
      latencyMs: latency,
    });
    defer(() => sim.close());
    const dir = mkdtempSync(join(tmpdir(), 'visync-bench-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const prefix = `bench-${randomUUID().slice(0, 8)}`;
    defer(() => deletePrefix(admin, prefix));

    const env: Record<string, string> = {};
    const doc = {
      accounts: sim.accounts.map((a) => {
        const name = `BENCH_${a.name.replace(/-/g, '_').toUpperCase()}_KEY`;
        env[name] = a.keys[0] as string;
        return {
          name: a.name,
          apiKey: `\${${name}}`,
          baseUrl: sim.url,
          requestsPerMinute: LIMIT,
          rateWindowSeconds: WINDOW_MS / 1000,
        };
      }),
      extract: { visibilityDays: PLAN.visibilityDays, buyerIntentDays: PLAN.buyerIntentDays },
      sinks: { fs: { dir: join(dir, 'data') } },
      redis: { url: redisUrl, prefix },
      shutdownGraceSeconds: 5,
    };
    const yaml = stringify(doc);
    const configPath = join(dir, 'visync.yaml');
    writeFileSync(configPath, yaml);
    const config = parseConfig(yaml, { source: configPath, env });
    const client = openJobsClient(config, 'bench');
    defer(() => client.close());

    const workers = Array.from({ length: P }, () => spawnWorker(configPath, env));
    for (const w of workers) defer(() => stopChild(w.child, 8_000));
    await Promise.all(workers.map(waitReady));
    const cpuAtReady = workers.map((w) => cpuMs(w.child.pid as number));

    const statsBefore = await commandStats(admin);
    const enqueuedAt = Date.now();
    const runs = await Promise.all(
      sim.accounts.map((a) =>
        enqueueRun(client.queues, client.ledger, config, { kind: 'sync', account: a.name }),
      ),
    );
    // Generous deadline: 3x the bound plus start-up slack; a bench that hangs tells nothing.
    const deadline = Date.now() + 60_000 + 3 * ((plannedRequestCount(W, PLAN) * 1000) / RATE);
    const done = new Map<string, LedgerRun>();
    while (done.size < runs.length) {
      for (const r of runs) {
        if (done.has(r.runId)) continue;
        const l = await client.ledger.get(r.runId);
        if (l && isFinishedStatus(l.status)) done.set(r.runId, l);
      }
      if (done.size === runs.length) break;
      for (const w of workers)
        if (w.child.exitCode !== null)
          throw new Error(`a worker exited mid-run:\n${w.output().slice(-4000)}`);
      if (Date.now() > deadline) {
        const states = await Promise.all(runs.map((r) => client.ledger.get(r.runId)));
        throw new Error(`runs not finished in time: ${JSON.stringify(states)}`);
      }
      await sleep(50);
    }
    const statsAfter = await commandStats(admin);
    const cpuAtEnd = workers.map((w) => cpuMs(w.child.pid as number));
    const rss = workers.map((w) => peakRssMb(w.child.pid as number));

    const jobs = (
      await Promise.all(
        sim.accounts.map((a) => client.queues.for(a.name).getJobs(['completed', 'failed'], 0, -1)),
      )
    ).flat();
    const wsJobs = jobs.filter((j) => j.name === JOB.workspace);
    const runJobs = jobs.filter((j) => j.name === JOB.run);
    const repick = (js: typeof jobs) => js.reduce((n, j) => n + Math.max(0, (j.attemptsStarted ?? 1) - 1), 0);

    let forced = 0;
    for (const w of workers) if ((await stopChild(w.child, 8_000)).forced) forced++;
    const bad = workers.map((w) => w.output()).filter((o) => /"level":"(warn|error|fatal)"/.test(o));
    if (bad.length) console.error(`worker warnings/errors:\n${bad.join('\n').slice(-4000)}`);

    const perAccount = sim.accounts.map((a, i) =>
      analyseAccount(sim.log, a.name, W, enqueuedAt, done.get(runs[i]!.runId) as LedgerRun),
    );
    const requests = perAccount.reduce((n, a) => n + a.requests, 0);
    const calls = callsBetween(statsBefore, statsAfter);
    const diff = (k: string) => calls.find(([c]) => c === k)?.[1] ?? 0;
    const allCommands = calls.reduce((n, [, v]) => n + v, 0);
    const top = calls.slice(0, 12);
    const wall = Math.max(...perAccount.map((a) => a.run_wall_s));
    const bound = Math.max(...perAccount.map((a) => a.bound_s));
    const workerCpu = cpuAtEnd.reduce((n, c, i) => n + c - (cpuAtReady[i] as number), 0);
    const used = process.cpuUsage(benchCpu);
    return {
      workers: P,
      accounts: A,
      workspaces: W,
      concurrency: concurrency as number,
      requests,
      status429: perAccount.reduce((n, a) => n + a.status429, 0),
      min_rate_ratio: Math.min(...perAccount.map((a) => a.rate_ratio)),
      max_span_over_bound: Math.max(...perAccount.map((a) => a.span_over_bound)),
      run_wall_s: wall,
      run_wall_over_bound: round(wall / bound, 3),
      cpu_ms_per_request: round(workerCpu / Math.max(1, requests), 2),
      cpu_ms_startup: round(
        cpuAtReady.reduce((a, b) => a + b, 0),
        0,
      ),
      peak_rss_mb: round(Math.max(...rss), 1),
      workspace_jobs: wsJobs.length,
      job_repickups: repick(wsJobs),
      run_job_repickups: repick(runJobs),
      redis_evalsha_per_request: round((diff('evalsha') + diff('eval')) / Math.max(1, requests), 2),
      redis_commands_per_request: round(allCommands / Math.max(1, requests), 1),
      redis_top_commands: Object.fromEntries(top.map(([k, v]) => [k, round(v / Math.max(1, requests), 2)])),
      forced_stops: forced,
      bench_process_cpu_ms: round((used.user + used.system) / 1000, 0),
      per_account: perAccount,
    };
  });
}

const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');

function tables(results: ScenarioResult[]): string {
  const lines: string[] = [];
  lines.push(
    `Simulator limit ${LIMIT} requests per ${WINDOW_MS / 1000} s per account (${RATE}/s), latency ${latency.min}-${latency.max} ms, ` +
      `worker concurrency ${concurrency}, ${plannedRequestCount(1, PLAN) - 2} calls per workspace + 2 per account, ` +
      `default jobs settings (one queue per account), ${CLK_TCK} clock ticks/s.`,
    '',
    '- **rate ratio** = requests / (first-to-last request span) / (120 per 2 s), the lowest over the accounts. Target >= 0.95.',
    '- **bound** = floor((requests - 1) / 120) x 2 s: the earliest the last request can arrive if every slot of the ' +
      'sliding window is reused the instant it frees (the first 120 go at once). The smooth bound (requests - 120) / 60 per s ' +
      'is in the JSON (`bound_smooth_s`); it is lower than anything a sliding window allows for small runs.',
    '- **span/bound** = first-to-last request of an account / its bound (the worst account); **wall/bound** = enqueue to ' +
      'the last run finished in the ledger (pickup, discovery, fan-out, extraction, normalise, manifest) / the bound.',
    '- **4 acc / 1 acc** = run wall time with 4 accounts / with 1, same workers and workspaces. Target <= 1.1.',
    '- **429s**: no faults are scripted, so every 429 is caused by our own traffic. Target 0.',
    '- **CPU ms/req** = utime+stime of all worker processes from their ready line to the end of the runs / requests; ' +
      '**peak RSS** = the largest VmHWM of a worker.',
    '- **slot idle** = for the i-th admitted request of an account (i >= 120): arrival(i) - arrival(i-120) - 2 s, i.e. how ' +
      'long a freed slot went unused (mean / p90, ms). **re-pickups** = extra starts of workspace jobs (budget delays: a job ' +
      'that would wait > 1 s for budget is moved to delayed and picked up again).',
    '',
    '| workers | accounts | ws/acct | requests | 429s | rate ratio | span/bound | wall s | wall/bound | 4 acc / 1 acc | CPU ms/req | peak RSS MB | slot idle ms mean/p90 | re-pickups | targets |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of results) {
    const idleMean = Math.max(...r.per_account.map((a) => a.slot_idle_ms.mean));
    const idleP90 = Math.max(...r.per_account.map((a) => a.slot_idle_ms.p90));
    const t = [
      `rate ${mark(r.min_rate_ratio >= TARGETS.rateRatio)}`,
      `429 ${mark(r.status429 <= TARGETS.selfCaused429)}`,
      ...(r.four_vs_one !== undefined ? [`4/1 ${mark(r.four_vs_one <= TARGETS.fourVsOne)}`] : []),
    ].join(', ');
    lines.push(
      `| ${r.workers} | ${r.accounts} | ${r.workspaces} | ${r.requests} | ${r.status429} | ${r.min_rate_ratio.toFixed(3)} | ` +
        `${r.max_span_over_bound.toFixed(2)} | ${r.run_wall_s.toFixed(1)} | ${r.run_wall_over_bound.toFixed(2)} | ` +
        `${r.four_vs_one !== undefined ? r.four_vs_one.toFixed(2) : ''} | ${r.cpu_ms_per_request.toFixed(2)} | ` +
        `${r.peak_rss_mb.toFixed(0)} | ${idleMean.toFixed(0)} / ${idleP90.toFixed(0)} | ${r.job_repickups} / ${r.workspace_jobs} | ${t} |`,
    );
  }
  lines.push(
    '',
    'Where the time goes (per account: enqueue to first request, first to last request, last request to run finished; ' +
      'the worst account):',
    '',
    '| workers | accounts | ws/acct | start lag s | API span s | bound s | tail s | ledger waited s (sum) | Redis EVALSHA / req | Redis cmds / req | startup CPU ms | peak in window |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of results) {
    const a = r.per_account;
    lines.push(
      `| ${r.workers} | ${r.accounts} | ${r.workspaces} | ${Math.max(...a.map((x) => x.start_lag_s)).toFixed(2)} | ` +
        `${Math.max(...a.map((x) => x.span_s)).toFixed(2)} | ${Math.max(...a.map((x) => x.bound_s)).toFixed(1)} | ` +
        `${Math.max(...a.map((x) => x.tail_s)).toFixed(2)} | ${(a.reduce((n, x) => n + x.ledger.waited_ms, 0) / 1000).toFixed(1)} | ` +
        `${r.redis_evalsha_per_request} | ${r.redis_commands_per_request} | ${r.cpu_ms_startup} | ` +
        `${Math.max(...a.map((x) => x.peak_in_window))} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

try {
  const redisUrl = await startRedis();
  const admin = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  cleanups.defer(() => admin.quit());
  const results: ScenarioResult[] = [];
  for (const W of workspaceCounts) {
    for (const P of workerCounts) {
      for (const A of accountCounts) {
        process.stderr.write(`workers ${P}, accounts ${A}, workspaces ${W}... `);
        const r = await runScenario(redisUrl, admin, P, A, W);
        process.stderr.write(
          `${r.requests} requests, ${r.status429} 429s, wall ${r.run_wall_s} s (bound ${Math.max(...r.per_account.map((a) => a.bound_s))} s)\n`,
        );
        results.push(r);
      }
    }
  }
  for (const r of results) {
    if (r.accounts !== 4) continue;
    const one = results.find(
      (o) => o.accounts === 1 && o.workers === r.workers && o.workspaces === r.workspaces,
    );
    if (one) r.four_vs_one = round(r.run_wall_s / one.run_wall_s, 3);
  }
  const md = tables(results);
  console.log(md);
  const failedRuns = results.flatMap((r) => r.per_account.filter((a) => a.ledger.status !== 'succeeded'));
  const missed = results.some(
    (r) =>
      r.min_rate_ratio < TARGETS.rateRatio ||
      r.status429 > TARGETS.selfCaused429 ||
      (r.four_vs_one !== undefined && r.four_vs_one > TARGETS.fourVsOne),
  );
  if (failedRuns.length) console.log(`runs that did not succeed: ${JSON.stringify(failedRuns)}`);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(
    join(RESULTS, 'workers.json'),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        limit: { requests: LIMIT, windowMs: WINDOW_MS },
        latency_ms: latency,
        concurrency,
        plan: PLAN,
        targets: TARGETS,
        clk_tck: CLK_TCK,
        results,
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(join(RESULTS, 'workers.md'), `# visync worker throughput\n\n${md}`);
  console.log(`written: bench/results/workers.json, bench/results/workers.md`);
  if (missed || failedRuns.length) process.exitCode = 1;
} catch (err) {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
} finally {
  await cleanups.run();
}
