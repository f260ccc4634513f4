// Agency scale: many accounts on a few `visync worker` processes, with real windows (120 requests per
// 60 s per account).
//   npm run bench:scale [-- --workers 1,2 --accounts 100,500 --workspaces 20 --out scale --merge]
//   npm run bench:scale -- --workers 1 --accounts 10       # a quick try: about 2 minutes
// --keep-log PATH keeps each scenario's simulator arrival log as PATH-<workers>w-<accounts>a.ndjson.
// --data-dir DIR puts the fs sink's folder under DIR (e.g. /dev/shm, to take the disk out of the CPU figure).
// --worker-node-options=OPTS sets NODE_OPTIONS for the workers alone (e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof" to profile them: each writes its profile when it stops).
// --bin: what is measured: `built` (default: `npm run build` first, then bin/visync.js, the bundle
// users install and run), `dev` (bin/visync-dev.js: the sources through tsx, which compiles them at
// start: about 1 s more CPU per worker) or the path of another checkout's bin; --note adds a line to the markdown (e.g.
// the commit measured); --out NAME writes NAME.json and NAME.md; --merge keeps the scenarios of an
// earlier NAME.json that this invocation does not measure again.
// Takes long: each scenario lasts at least one window plus start-up and wind-down (about 2 minutes
// at 100 accounts, if the workers keep up) and far longer when they do not (3-5 minutes at 500
// accounts before the agency-scale rework); the default four scenarios took 14-20 minutes on a
// shared 2-core machine, plus up to 5 minutes before a scenario while a file created in its data
// folder costs 100 us of CPU or more (files deleted nearby just before: bench/lib/file-cost.ts).
// It prints progress every 10 s.
//
// Per scenario, everything a user would run, each in its own process: a private redis-server,
// `visync simulate` (N accounts of W workspaces, real window, --request-log), P `visync worker`
// processes and one `visync enqueue sync` (one run per account), all through one bin (--bin). The bench
// only watches: the run ledger in Redis (until every run is terminal), INFO commandstats, and /proc
// (CPU, peak RSS and Redis connections of each worker process). The simulator's arrival log, read
// after it stops, gives the requests, the 429s and how close each account came to its limit.
// Nothing here imports the jobs layer, so another queue topology is measured without change.
// Results: stdout, bench/results/<out>.json (one object per scenario) and <out>.md.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { isFinishedStatus } from '../src/records/run-state.js';
import { parseRequestLogNdjson } from '../src/simulator/index.js';
import { DEV_BIN } from '../test/helpers/cli-bin.js';
import { startPrivateRedis } from '../test/helpers/redis-server.js';
import { binToMeasure } from './lib/bin.js';
import { CleanupStack } from './lib/cleanup.js';
import { describeSettling, fileCostUs, type Settling, waitForFileSystem } from './lib/file-cost.js';
import { countList } from './lib/flags.js';
import { type CliProcess, sleep, spawnCli, stopChild, waitForOutput } from './lib/processes.js';
import { type AccountRate, accountRates, type WindowLimit } from './lib/rate.js';
import { callsBetween, commandStats } from './lib/redis-stats.js';
import {
  SCALE_TARGETS,
  type ScaleResult,
  type ScenarioMeasures,
  scaleResult,
  scaleTable,
} from './lib/scale-report.js';
import { round } from './lib/stats.js';
import { CLK_TCK, tcpConnectionsTo, treeCpuMs, treeCpuSplitMs, treePeakRssMb } from './proc-stats.js';

const LIMIT: WindowLimit = { requests: 120, windowMs: 60_000 };
const PREFIX = 'scale';
const SAMPLE_MS = 1000;
const PROGRESS_MS = 10_000;

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '1,2' },
    accounts: { type: 'string', default: '100,500' },
    workspaces: { type: 'string', default: '20' },
    latency: { type: 'string', default: '5-20' },
    concurrency: { type: 'string' },
    'timeout-s': { type: 'string', default: '1800' },
    bin: { type: 'string', default: 'built' },
    out: { type: 'string', default: 'scale' },
    merge: { type: 'boolean', default: false },
    'keep-log': { type: 'string' },
    'worker-node-options': { type: 'string' },
    'data-dir': { type: 'string' },
    note: { type: 'string' },
  },
});
const workerCounts = countList('workers', values.workers);
const accountCounts = countList('accounts', values.accounts);
const [workspaces] = countList('workspaces', values.workspaces) as [number];
const [timeoutS] = countList('timeout-s', values['timeout-s']) as [number];
const concurrencyArgs = values.concurrency
  ? ['--concurrency', String(countList('concurrency', values.concurrency)[0])]
  : [];
if (!/^\d+(-\d+)?$/.test(values.latency ?? ''))
  throw new Error(`--latency: expected MS or MIN-MAX, got "${values.latency}"`);
if (!/^[\w-]+$/.test(values.out ?? ''))
  throw new Error(`--out: expected a file name without extension, got "${values.out}"`);
const BIN = binToMeasure(values.bin as string);

const RESULTS = new URL('./results/', import.meta.url).pathname;

const cleanups = new CleanupStack();
cleanups.onSignals();

const log = (line: string) => process.stderr.write(`[scale] ${line}\n`);

interface SimProcess {
  proc: CliProcess;
  url: string;
  accounts: { name: string; keyEnv: string }[];
  /** Environment the workers need: one key variable per account. */
  env: Record<string, string>;
}

/** `visync simulate` in its own process; its banner gives the URL, and the key of each account. */
async function startSimulatorProcess(accounts: number, logPath: string): Promise<SimProcess> {
  const proc = spawnCli(BIN, [
    'simulate',
    '--port',
    '0',
    '--seed',
    '7',
    '--accounts',
    String(accounts),
    '--workspaces',
    String(workspaces),
    '--limit',
    String(LIMIT.requests),
    '--window-ms',
    String(LIMIT.windowMs),
    '--latency-ms',
    values.latency as string,
    '--request-log',
    logPath,
  ]);
  await waitForOutput(proc, 'Press Ctrl-C to stop.', 120_000, 'visync simulate');
  const out = proc.stdout();
  const url = /visync simulator listening on (\S+)/.exec(out)?.[1];
  const names = [...out.matchAll(/^account (\S+): plan/gm)].map((m) => m[1] as string);
  const exports = [...out.matchAll(/^export (\w+)=(\S+)$/gm)].map(
    (m) => [m[1] as string, m[2] as string] as const,
  );
  if (!url || names.length !== accounts || exports.length !== accounts)
    throw new Error(
      `cannot read the simulator's banner (URL, ${accounts} accounts and keys):\n${out.slice(0, 2000)}`,
    );
  return {
    proc,
    url,
    // The banner lists the exports in the order of the accounts.
    accounts: names.map((name, i) => ({ name, keyEnv: exports[i]?.[0] as string })),
    env: Object.fromEntries(exports),
  };
}

function writeConfig(dir: string, dataDir: string, sim: SimProcess, redisUrl: string): string {
  const doc = {
    accounts: sim.accounts.map((a) => ({
      name: a.name,
      apiKey: `\${${a.keyEnv}}`,
      baseUrl: sim.url,
      requestsPerMinute: LIMIT.requests,
      rateWindowSeconds: LIMIT.windowMs / 1000,
    })),
    sinks: { fs: { dir: dataDir } },
    redis: { url: redisUrl, prefix: PREFIX },
    // The nightly schedule twelve hours from now: left at its default (02:00 UTC) a bench running
    // then had the workers start a nightly run of every account beside the measured ones.
    schedule: { nightly: { cron: `0 ${(new Date().getUTCHours() + 12) % 24} * * *`, tz: 'UTC' } },
    shutdownGraceSeconds: 5,
  };
  const path = join(dir, 'visync.yaml');
  writeFileSync(path, stringify(doc));
  return path;
}

/** `visync enqueue sync` for every account of the config; the run ids it prints. */
async function enqueueAll(
  configPath: string,
  env: Record<string, string>,
  accounts: number,
): Promise<string[]> {
  const p = spawnCli(BIN, ['--config', configPath, 'enqueue', 'sync'], env);
  const { code } = await p.exited;
  const ids = [...p.stdout().matchAll(/^\S+: enqueued sync (\S+)$/gm)].map((m) => m[1] as string);
  if (code !== 0 || ids.length !== accounts)
    throw new Error(
      `visync enqueue sync exited ${code} with ${ids.length} of ${accounts} runs:\n${p.output().slice(-4000)}`,
    );
  return ids;
}

interface LedgerView {
  status: string;
  created_ms: number;
  finished_ms: number;
  calls: number;
}

/**
 * The bench's own Redis connection. It counts every command it sends, so they can be taken out of
 * the server's totals. It reads the run ledger hashes directly (the layout of jobs/ledger.ts:
 * PREFIX:ledger:run:RUN_ID), one HMGET per unfinished run per poll, in one pipeline.
 */
class Observer {
  readonly redis: Redis;
  /** Commands sent, by name (as INFO commandstats names them). */
  readonly sent = new Map<string, number>();
  #count(command: string, n = 1): void {
    this.sent.set(command, (this.sent.get(command) ?? 0) + n);
  }
  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
  }
  async commandStats(): Promise<Map<string, number>> {
    this.#count('info');
    return commandStats(this.redis);
  }
  /** used_cpu_sys + used_cpu_user of the Redis server, ms. */
  async redisCpuMs(): Promise<number> {
    this.#count('info');
    const info = await this.redis.info('cpu');
    const f = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
    return (f('used_cpu_sys') + f('used_cpu_user')) * 1000;
  }
  async connectedClients(): Promise<number> {
    this.#count('info');
    return Number(/connected_clients:(\d+)/.exec(await this.redis.info('clients'))?.[1] ?? 0);
  }
  async ledger(runIds: string[]): Promise<Map<string, LedgerView | undefined>> {
    const pipe = this.redis.pipeline();
    for (const id of runIds)
      pipe.hmget(`${PREFIX}:ledger:run:${id}`, 'status', 'created_at', 'finished_at', 'calls');
    this.#count('hmget', runIds.length);
    const replies = (await pipe.exec()) ?? [];
    const out = new Map<string, LedgerView | undefined>();
    runIds.forEach((id, i) => {
      const [err, v] = replies[i] ?? [new Error('no reply'), null];
      if (err) throw err;
      const [status, created, finished, calls] = v as (string | null)[];
      out.set(
        id,
        status
          ? {
              status,
              created_ms: Date.parse(created ?? ''),
              finished_ms: finished ? Date.parse(finished) : Number.NaN,
              calls: Number(calls ?? 0),
            }
          : undefined,
      );
    });
    return out;
  }
}

interface Sampled {
  /** Per worker: the most Redis connections seen at once. */
  connections: number[];
  redisClientsPeak: number;
  load1: number[];
}

function sampleProcesses(workers: CliProcess[], redisPort: number, s: Sampled): void {
  workers.forEach((w, i) => {
    s.connections[i] = Math.max(s.connections[i] ?? 0, tcpConnectionsTo(w.pid, redisPort));
  });
  s.load1.push(loadavg()[0] as number);
}

/** Polls the ledger (and samples the workers) until every run is terminal or the time is up. */
async function waitForRuns(
  observer: Observer,
  runIds: string[],
  workers: CliProcess[],
  redisPort: number,
  sampled: Sampled,
  label: string,
): Promise<{ ledger: Map<string, LedgerView>; timedOut: boolean }> {
  const started = Date.now();
  const deadline = started + timeoutS * 1000;
  const ledger = new Map<string, LedgerView>();
  let nextProgress = started + PROGRESS_MS;
  for (;;) {
    const open = runIds.filter((id) => !isFinishedStatus(ledger.get(id)?.status));
    for (const [id, v] of await observer.ledger(open)) {
      if (!v)
        throw new Error(
          `run ${id} is not in the ledger (${PREFIX}:ledger:run:${id}): has its layout changed?`,
        );
      ledger.set(id, v);
    }
    sampleProcesses(workers, redisPort, sampled);
    sampled.redisClientsPeak = Math.max(sampled.redisClientsPeak, await observer.connectedClients());
    const done = runIds.filter((id) => isFinishedStatus(ledger.get(id)?.status)).length;
    if (done === runIds.length) return { ledger, timedOut: false };
    for (const w of workers)
      if (w.child.exitCode !== null) throw new Error(`a worker exited mid-run:\n${w.output().slice(-4000)}`);
    if (Date.now() >= nextProgress) {
      nextProgress += PROGRESS_MS;
      const calls = [...ledger.values()].reduce((n, v) => n + v.calls, 0);
      log(
        `${label} ${Math.round((Date.now() - started) / 1000)} s: ${done}/${runIds.length} runs terminal, ` +
          `${calls} requests (ledger), Redis connections per worker ${sampled.connections.join('/')}, ` +
          `load ${(loadavg()[0] as number).toFixed(2)}`,
      );
    }
    if (Date.now() > deadline) return { ledger, timedOut: true };
    await sleep(SAMPLE_MS);
  }
}

const IDLE_MS = 5000;

/** What the ready workers cost with nothing to do: Redis commands and worker CPU per second. */
async function idleCost(
  observer: Observer,
  workers: CliProcess[],
): Promise<{ cmdsPerS: number; cpuMsPerS: number }> {
  observer.sent.clear();
  const cpu0 = workers.reduce((n, w) => n + treeCpuMs(w.pid), 0);
  const s0 = await observer.commandStats();
  // The first snapshot is in the rise of the counters, the second is not.
  const own = new Map(observer.sent);
  await sleep(IDLE_MS);
  const s1 = await observer.commandStats();
  const cpu1 = workers.reduce((n, w) => n + treeCpuMs(w.pid), 0);
  const cmds = callsBetween(s0, s1, own).reduce((n, [, v]) => n + v, 0);
  return {
    cmdsPerS: round(cmds / (IDLE_MS / 1000), 0),
    cpuMsPerS: round((cpu1 - cpu0) / (IDLE_MS / 1000), 0),
  };
}

/** Extra facts of a scenario for the markdown notes (the JSON keeps only the issue's fields). */
interface ScenarioNotes {
  timedOut: boolean;
  runsTerminal: number;
  notSucceeded: string[];
  workerStartupCpuMs: number;
  /** fileCostUs of the data folder before and after the scenario. */
  fileCostUs: [number, number];
  /** The wait for the data folder's file system before the scenario. */
  settling: Settling;
  /** Share of the workers' CPU spent in the kernel. */
  systemShare: number;
  redisClientsPeak: number;
  benchCommands: number;
  redisCpuMsPerRequest: number;
  idle: { cmdsPerS: number; cpuMsPerS: number };
  simulatorCpuMsPerRequest: number;
  topCommands: [string, number][];
  load1: { min: number; max: number };
  minRequestsPerAccount: number;
  worstAccount?: AccountRate;
}

async function runScenario(P: number, A: number): Promise<{ result: ScaleResult; notes: ScenarioNotes }> {
  const label = `${P} worker(s), ${A} accounts:`;
  return cleanups.scope(async (defer) => {
    // Folders are removed when the whole bench is over, not after each scenario: deleting the
    // tens of thousands of files of one would make the next one's file creations dearer for
    // minutes (bench/lib/file-cost.ts).
    const dir = mkdtempSync(join(tmpdir(), 'visync-scale-'));
    cleanups.defer(() => rmSync(dir, { recursive: true, force: true }));
    const redis = await startPrivateRedis();
    defer(() => redis.stop());
    const redisPort = Number(new URL(redis.url).port);
    const logPath = join(dir, 'requests.ndjson');
    const sim = await startSimulatorProcess(A, logPath);
    defer(() => stopChild(sim.proc.child, 60_000));
    // The fs sink's folder: under --data-dir when given (another file system), else beside the rest.
    const dataDir = values['data-dir']
      ? mkdtempSync(join(values['data-dir'], 'visync-scale-data-'))
      : join(dir, 'data');
    if (values['data-dir']) cleanups.defer(() => rmSync(dataDir, { recursive: true, force: true }));
    mkdirSync(dataDir, { recursive: true });
    const settling = await waitForFileSystem(dataDir);
    if (settling.waitedMs > 0) log(`${label} ${describeSettling(settling)}`);
    const fileCostBefore = fileCostUs(dataDir);
    const configPath = writeConfig(dir, dataDir, sim, redis.url);

    const workers = Array.from({ length: P }, () =>
      spawnCli(
        BIN,
        ['--config', configPath, 'worker', '--listen', 'off', '--log-level', 'warn', ...concurrencyArgs],
        values['worker-node-options'] ? { ...sim.env, NODE_OPTIONS: values['worker-node-options'] } : sim.env,
      ),
    );
    for (const w of workers) defer(() => stopChild(w.child, 15_000));
    await Promise.all(workers.map((w) => waitForOutput(w, 'visync worker ready', 180_000, 'visync worker')));
    const startupCpu = workers.map((w) => treeCpuMs(w.pid));
    log(
      `${label} workers ready (start-up CPU ${startupCpu.map((c) => Math.round(c)).join('/')} ms); enqueueing`,
    );

    const observer = new Observer(redis.url);
    defer(() => observer.redis.quit());
    await observer.redis.ping();
    const sampled: Sampled = { connections: [], redisClientsPeak: 0, load1: [] };
    sampleProcesses(workers, redisPort, sampled);
    const idle = await idleCost(observer, workers);
    const redisCpuBefore = await observer.redisCpuMs();
    const simCpuBefore = treeCpuMs(sim.proc.pid);
    // From here on, what the observer sends is in the rise of the counters (the snapshot below
    // included: INFO does not count itself), so all of it is taken out.
    observer.sent.clear();
    const before = await observer.commandStats();
    const runIds = await enqueueAll(configPath, sim.env, A);
    const { ledger, timedOut } = await waitForRuns(observer, runIds, workers, redisPort, sampled, label);
    const benchCommands = new Map(observer.sent);
    const after = await observer.commandStats();
    const redisCpu = (await observer.redisCpuMs()) - redisCpuBefore;
    const simCpu = treeCpuMs(sim.proc.pid) - simCpuBefore;
    const split = workers.map((w) => treeCpuSplitMs(w.pid));
    const systemCpuMs = split.reduce((n, c) => n + c.system, 0);
    const cpuMs = split.reduce((n, c) => n + c.user, systemCpuMs);
    const peakRss = Math.max(...workers.map((w) => treePeakRssMb(w.pid)));
    sampleProcesses(workers, redisPort, sampled);

    for (const w of workers) await stopChild(w.child, 15_000);
    // The private redis-server has no persistence on purpose: its warning says nothing about the run.
    const warnings = workers
      .flatMap((w) => w.output().split('\n'))
      .filter((l) => /"level":"(warn|error|fatal)"/.test(l) && !l.includes('Redis has no persistence'));
    if (warnings.length) log(`worker warnings/errors:\n${warnings.join('\n').slice(-3000)}`);
    await stopChild(sim.proc.child, 60_000);
    const fileCostAfter = fileCostUs(dataDir);
    const arrivals = parseRequestLogNdjson(readFileSync(logPath, 'utf8'));
    if (values['keep-log']) copyFileSync(logPath, `${values['keep-log']}-${P}w-${A}a.ndjson`);

    const views = [...ledger.values()];
    const calls = callsBetween(before, after, benchCommands);
    const measures: ScenarioMeasures = {
      workers: P,
      accounts: A,
      rates: accountRates(
        arrivals,
        sim.accounts.map((a) => a.name),
        LIMIT,
      ),
      redisConnectionsPerProcess: sampled.connections,
      redisCommands: calls.reduce((n, [, v]) => n + v, 0),
      workerCpuMs: cpuMs,
      peakRssMb: peakRss,
      wallMs:
        Math.max(...views.map((v) => (Number.isNaN(v.finished_ms) ? Date.now() : v.finished_ms))) -
        Math.min(...views.map((v) => v.created_ms)),
    };
    const result = scaleResult(measures);
    const worst = [...measures.rates].sort((a, b) => a.ratio - b.ratio)[0];
    return {
      result,
      notes: {
        timedOut,
        runsTerminal: views.filter((v) => isFinishedStatus(v.status)).length,
        notSucceeded: [...ledger]
          .filter(([, v]) => v.status !== 'succeeded')
          .map(([id, v]) => `${id}: ${v.status}`),
        fileCostUs: [fileCostBefore, fileCostAfter],
        settling,
        systemShare: round(systemCpuMs / Math.max(1, cpuMs), 2),
        workerStartupCpuMs: round(
          startupCpu.reduce((a, b) => a + b, 0),
          0,
        ),
        redisClientsPeak: sampled.redisClientsPeak,
        benchCommands: [...benchCommands.values()].reduce((a, b) => a + b, 0),
        idle,
        redisCpuMsPerRequest: round(redisCpu / Math.max(1, result.requests), 3),
        simulatorCpuMsPerRequest: round(simCpu / Math.max(1, result.requests), 3),
        topCommands: calls.slice(0, 10).map(([k, v]) => [k, round(v / Math.max(1, result.requests), 2)]),
        load1: { min: Math.min(...sampled.load1), max: Math.max(...sampled.load1) },
        minRequestsPerAccount: Math.min(...measures.rates.map((r) => r.requests)),
        ...(worst ? { worstAccount: worst } : {}),
      },
    };
  });
}

function notesMarkdown(rows: { result: ScaleResult; notes: ScenarioNotes }[]): string {
  const out: string[] = [];
  for (const { result: r, notes: n } of rows) {
    const w = n.worstAccount;
    out.push(
      `- ${r.workers} worker(s), ${r.accounts} accounts: ` +
        `${n.timedOut ? `**timed out** after ${timeoutS} s with ${n.runsTerminal}/${r.accounts} runs terminal (measures up to then); ` : ''}` +
        `${n.notSucceeded.length ? `runs not succeeded: ${n.notSucceeded.slice(0, 5).join(', ')}${n.notSucceeded.length > 5 ? ` and ${n.notSucceeded.length - 5} more` : ''}; ` : 'every run succeeded; '}` +
        `load average (1 min) ${n.load1.min.toFixed(2)}-${n.load1.max.toFixed(2)}; ` +
        `worker start-up CPU ${n.workerStartupCpuMs} ms (in the CPU figure); ` +
        `${Math.round(n.systemShare * 100)}% of the workers' CPU in the kernel; ` +
        (n.settling.waitedMs > 0 ? `${describeSettling(n.settling)} before it; ` : '') +
        `the data folder's file system: ${n.fileCostUs[0]} us before and ${n.fileCostUs[1]} us after of CPU per 3 KB file written, renamed and read back; ` +
        (n.idle
          ? `ready workers with no work: ${n.idle.cmdsPerS} Redis commands/s, ${n.idle.cpuMsPerS} ms CPU/s; `
          : '') +
        `Redis clients at most ${n.redisClientsPeak} (all processes); ` +
        `bench's own Redis commands taken out: ${n.benchCommands}; ` +
        `CPU ms per request of redis-server ${n.redisCpuMsPerRequest} and of the simulator ${n.simulatorCpuMsPerRequest} (not in the figure); ` +
        `busiest commands per request: ${n.topCommands.map(([k, v]) => `${k} ${v}`).join(', ')}; ` +
        (w
          ? `slowest account ${w.account}: ${w.requests} requests in ${(w.span_ms / 1000).toFixed(1)} s (bound ${(w.bound_ms / 1000).toFixed(0)} s).`
          : ''),
    );
  }
  return out.join('\n');
}

function writeResults(rows: { result: ScaleResult; notes: ScenarioNotes }[]): void {
  mkdirSync(RESULTS, { recursive: true });
  const jsonPath = join(RESULTS, `${values.out}.json`);
  const mdPath = join(RESULTS, `${values.out}.md`);
  let results = rows.map((r) => r.result);
  let earlierNotes = '';
  if (values.merge) {
    // Scenarios measured before (another invocation) stay, unless measured again now.
    const kept = (JSON.parse(readFileSync(jsonPath, 'utf8')) as ScaleResult[]).filter(
      (o) => !results.some((r) => r.workers === o.workers && r.accounts === o.accounts),
    );
    results = [...kept, ...results].sort((a, b) => a.accounts - b.accounts || a.workers - b.workers);
    const old = readFileSync(mdPath, 'utf8');
    earlierNotes = (/\n## Notes\n\n([\s\S]*?)\n\n/.exec(old)?.[1] ?? '')
      .split('\n')
      .filter(
        (l) =>
          !rows.some(({ result: r }) => l.startsWith(`- ${r.workers} worker(s), ${r.accounts} accounts:`)),
      )
      .join('\n');
  }
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  const md = [
    '# visync at agency scale',
    '',
    `${LIMIT.requests} requests per ${LIMIT.windowMs / 1000} s per account (real window), ${workspaces} workspaces per ` +
      `account, simulator latency ${values.latency} ms, worker flags: ${concurrencyArgs.join(' ') || 'defaults'}` +
      `${values['worker-node-options'] ? `, worker NODE_OPTIONS: ${values['worker-node-options']}` : ''}. ` +
      `Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? '?'}), ${CLK_TCK} clock ticks/s, shared with other work: ` +
      'see the load averages below.' +
      ` fs sink in ${values['data-dir'] ? values['data-dir'] : 'the OS temp folder'}.` +
      ` Bin: ${BIN === DEV_BIN ? 'the sources through tsx (bin/visync-dev.js)' : BIN.endsWith('/bin/visync.js') ? 'bin/visync.js (the build)' : BIN}.` +
      (values.note ? ` ${values.note}` : ''),
    '',
    scaleTable(results),
    '',
    '## Notes',
    '',
    [earlierNotes, notesMarkdown(rows)].filter(Boolean).join('\n'),
    '',
    '## How each figure is taken',
    '',
    '- **requests**, **429s**: the arrival log of the simulator (its own process, `visync simulate --request-log`). No faults are scripted, so every 429 is caused by our own traffic.',
    '- **rate ratio** per account: floor((N-1)/120) x 60 s (the least time N admitted requests can take under the sliding window) / the span from its first to its last admitted request; min and median over the accounts. 1 = every freed slot reused at once.',
    '- **Redis conns/process**: the most TCP connections to the Redis port held at once by one worker process (its socket inodes in /proc/PID/fd against /proc/PID/net/tcp), sampled every second, the largest over the workers.',
    "- **Redis cmds/req**: the rise of INFO commandstats calls (all clients, commands run inside Lua scripts included) from just before enqueue to the last run terminal, less the bench's own (counted as sent), / requests. The enqueue command's own are in.",
    '- **CPU ms/req**: utime + stime of the worker processes (whole life, start-up included, until every run is terminal) / requests. The simulator, Redis and the bench are not in it.',
    "- **file system**: the bench's own CPU per 3 KB file written, renamed and read back in the sink's folder (1,000 files), before and after the scenario: the workers land about 1.3 files and read back 1.1 per request, and on a shared virtual machine this cost moves several-fold within an hour, so it says how much of a CPU figure is the machine's disk at the time.",
    '- **peak RSS**: the largest VmHWM of a worker process. **wall s**: the first run created in the ledger to the last one finished.',
    '- Blind spots: connections open for less than a second can be missed; with `--bin dev` the workers compile TypeScript at start (in CPU and RSS, ' +
      'start-up CPU is in the notes); the idle cost is read over 5 s, so periodic work (stalled-job checks every lockSeconds) may fall ' +
      "outside it; the machine is shared, so wall time and rate ratios move with its load (the notes give it); redis-server's and the " +
      "simulator's CPU are not in the CPU figure (the notes give them).",
    '',
  ].join('\n');
  writeFileSync(mdPath, md);
  console.log(scaleTable(results));
  console.log(`written: bench/results/${values.out}.json, bench/results/${values.out}.md`);
}

try {
  const rows: { result: ScaleResult; notes: ScenarioNotes }[] = [];
  for (const A of accountCounts) {
    for (const P of workerCounts) {
      log(
        `${P} worker(s), ${A} accounts x ${workspaces} workspaces: starting (load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})`,
      );
      const row = await runScenario(P, A);
      const r = row.result;
      log(
        `${P} worker(s), ${A} accounts: ${r.requests} requests in ${r.wall_s} s, rate ratio min ${r.min_rate_ratio} / median ${r.median_rate_ratio}, ` +
          `${r.self_429} 429s, ${r.redis_connections_per_process} Redis connections per process, ${r.redis_cmds_per_request} cmds/req, ` +
          `${r.cpu_ms_per_request} CPU ms/req, peak RSS ${r.peak_rss_mb} MB${row.notes.timedOut ? ' (TIMED OUT)' : ''}`,
      );
      rows.push(row);
    }
  }
  writeResults(rows);
  const missed = rows.some(({ result, notes }) => notes.timedOut || SCALE_TARGETS.missed(result).length > 0);
  if (missed) process.exitCode = 1;
} catch (err) {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
} finally {
  await cleanups.run();
}
