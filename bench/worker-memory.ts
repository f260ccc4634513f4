// The memory of a worker making scheduled PDF reports: what the Deployment's requests and limits
// and the compose files' mem_limit are set from (docs/deploying.md, "Reports").
//   npm run bench:worker-memory -- [--workspaces 24 --days 60 --out worker-memory]
// --bin: `built` (default: `npm run build` first, then bin/visync.js), `dev` or another checkout's bin.
//
// Steps: a private redis-server, a local SMTP server (smtp-server) that accepts every mail, the
// simulator, and one inline sync of `days` days dated 2026-10-31 (the last day of October) into an
// fs store. Then, measured: a real `visync worker` process (as the image runs it: node bin/visync.js
// worker) with a reports block (monthly on day 1, formats html, json and pdf, two recipients, SMTP
// with a password from SMTP_PASSWORD) and the nightly run of 2026-11-01 queued: the worker syncs the
// night, then its report job makes October's report of every workspace, prints each PDF with one
// Chromium and mails it to both recipients. Every 100 ms the worker's process tree (node and every
// Chromium process it started) is read from /proc/PID/smaps_rollup: the sum of its proportional set
// sizes (PSS: a page shared by N processes counts 1/N in each, so the sum counts it once; the
// closest a sample gets to what the container's memory cgroup charges) and the sum of the resident
// sets (RSS: shared pages counted in every process, an upper bound). Peaks of each, and of node and
// Chromium apart. It ends when every mail arrived.
// Results: stdout and bench/results/<out>.json.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { stringify } from 'yaml';
import { openJobsClient } from '../jobs/jobs-client.js';
import { parseConfig } from '../src/config/read-config.js';
import { createLogger } from '../src/log.js';
import { logicalRunId } from '../src/records/run-id.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { startSimulator } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { binToMeasure } from './lib/bin.js';
import { CleanupStack } from './lib/cleanup.js';
import { countList } from './lib/flags.js';
import { round } from './lib/stats.js';
import { processTree } from './proc-stats.js';

const ACCOUNT = 'acme';
const SYNCED = '2026-10-31';
const NIGHT = '2026-11-01';
const RECIPIENTS = ['cmo@client.example', 'seo@client.example'];
const LIMIT = { requests: 2000, windowMs: 1000 };

const { values } = parseArgs({
  options: {
    workspaces: { type: 'string', default: '24' },
    days: { type: 'string', default: '60' },
    bin: { type: 'string', default: 'built' },
    out: { type: 'string', default: 'worker-memory' },
    'timeout-s': { type: 'string', default: '900' },
  },
});
const [workspaces] = countList('workspaces', values.workspaces) as [number];
const [days] = countList('days', values.days) as [number];
const [timeoutS] = countList('timeout-s', values['timeout-s']) as [number];
if (!/^[\w-]+$/.test(values.out ?? ''))
  throw new Error(`--out: expected a file name without extension, got "${values.out}"`);
const BIN = binToMeasure(values.bin as string);
// The worker straight under a supported Node (22.19+, bin/supported-node.js): bin/visync.js started
// by an older one re-runs itself as a child under the clone's Node, and that parent would be counted too.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const NODE =
  major > 22 || (major === 22 && minor >= 19)
    ? process.execPath
    : new URL('../node_modules/node/bin/node', import.meta.url).pathname;

const cleanups = new CleanupStack();
cleanups.onSignals();
const log = (line: string) => process.stderr.write(`[worker-memory] ${line}\n`);

interface Rollup {
  rss: number;
  pss: number;
}

/** RSS and PSS (MB) of a live process now; zeros once it is gone. */
function rollup(pid: number): Rollup {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rss: kb('Rss') / 1024, pss: kb('Pss') / 1024 };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

/** A free TCP port on 127.0.0.1 (the OS picks one, then it is closed again). */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<string> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  cleanups.defer(() => child.kill('SIGTERM'));
  const { Redis } = await import('ioredis');
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => {});
    try {
      await r.connect();
      await r.ping();
      r.disconnect();
      return url;
    } catch {
      r.disconnect();
      await new Promise((res) => setTimeout(res, 100));
    }
  }
  throw new Error('redis-server did not start');
}

async function startSmtp(onMail: () => void): Promise<number> {
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth: (_auth, _session, cb) => cb(null, { user: 'reports' }),
    onData(stream, _session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        onMail();
        cb();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  cleanups.defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return port;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'visync-bench-worker-memory-'));
  cleanups.defer(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data');
  const redisUrl = await startRedis();
  let mails = 0;
  const smtpPort = await startSmtp(() => {
    mails += 1;
  });

  const sim = await startSimulator({
    seed: 22,
    accounts: [{ name: ACCOUNT, workspaces }],
    limit: LIMIT,
    today: SYNCED,
  });
  const keyEnv = 'BENCH_WORKER_MEMORY_KEY';
  const key = sim.accounts[0]?.keys[0] as string;
  const account = (baseUrl: string) => ({
    name: ACCOUNT,
    apiKey: `\${${keyEnv}}`,
    baseUrl,
    requestsPerMinute: LIMIT.requests,
    rateWindowSeconds: LIMIT.windowMs / 1000,
  });
  log(`sync: ${workspaces} workspaces, ${days} days to ${SYNCED}`);
  const synced = await runInline({
    config: parseConfig(stringify({ accounts: [account(sim.url)], sinks: { fs: { dir: dataDir } } }), {
      source: 'bench',
      env: { [keyEnv]: key },
    }),
    store: new FsObjectStore(dataDir),
    logger: createLogger({ level: 'warn' }),
    runDate: SYNCED,
    days,
  });
  await sim.close();
  if (synced.status !== 'succeeded') throw new Error(`the sync ended ${synced.status}`);

  // The worker's night: the simulator one day on (same seed, so the same workspaces).
  const night = await startSimulator({
    seed: 22,
    accounts: [{ name: ACCOUNT, workspaces }],
    limit: LIMIT,
    today: NIGHT,
  });
  cleanups.defer(() => night.close());
  const yaml = stringify({
    accounts: [account(night.url)],
    sinks: { fs: { dir: dataDir } },
    redis: { url: redisUrl, prefix: 'bench-wm' },
    // Served as in the image (/healthz, /metrics, /ui/): its memory is part of the worker's.
    worker: { listen: `127.0.0.1:${await freePort()}` },
    shutdownGraceSeconds: 10,
    reports: {
      schedule: { period: 'monthly', day: 1 },
      recipients: RECIPIENTS,
      formats: ['html', 'json', 'pdf'],
      agency: 'Northwind Agency',
      smtp: {
        host: '127.0.0.1',
        port: smtpPort,
        from: 'reports@northwind.example',
        user: 'reports',
        passwordEnv: 'SMTP_PASSWORD',
      },
    },
  });
  const configPath = join(dir, 'visync.yaml');
  writeFileSync(configPath, yaml);
  const env = { [keyEnv]: key, SMTP_PASSWORD: 'bench-smtp-password' };

  const started = performance.now();
  const worker = spawn(NODE, [BIN, '--config', configPath, 'worker', '--log-format', 'json'], {
    env: { ...process.env, ...env, VISYNC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-50_000);
  };
  worker.stdout.on('data', keep);
  worker.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  cleanups.defer(() => worker.kill('SIGKILL'));
  const pid = worker.pid as number;

  const peak = { pss: 0, rss: 0, nodePss: 0, nodeRss: 0, chromiumPss: 0, chromiumProcesses: 0 };
  const idle = { pss: 0, rss: 0 };
  let chromiumSeen = false;
  const sample = () => {
    const tree = processTree(pid);
    const parts = tree.map((p) => ({ p, ...rollup(p) }));
    const node = parts.find((x) => x.p === pid) ?? { pss: 0, rss: 0 };
    const others = parts.filter((x) => x.p !== pid);
    const pss = parts.reduce((s, x) => s + x.pss, 0);
    const rss = parts.reduce((s, x) => s + x.rss, 0);
    const chromiumPss = others.reduce((s, x) => s + x.pss, 0);
    if (others.length > 0) chromiumSeen = true;
    else if (!chromiumSeen) {
      idle.pss = Math.max(idle.pss, pss);
      idle.rss = Math.max(idle.rss, rss);
    }
    peak.pss = Math.max(peak.pss, pss);
    peak.rss = Math.max(peak.rss, rss);
    peak.nodePss = Math.max(peak.nodePss, node.pss);
    peak.nodeRss = Math.max(peak.nodeRss, node.rss);
    peak.chromiumPss = Math.max(peak.chromiumPss, chromiumPss);
    peak.chromiumProcesses = Math.max(peak.chromiumProcesses, others.length);
  };
  const sampler = setInterval(sample, 100);
  cleanups.defer(() => clearInterval(sampler));

  const client = openJobsClient(
    parseConfig(yaml, { source: configPath, env: { ...env, [keyEnv]: key } }),
    'bench',
  );
  cleanups.defer(() => client.close());
  await client.queues
    .for(ACCOUNT)
    .add(
      'run',
      { account: ACCOUNT, kind: 'nightly', runDate: NIGHT },
      { jobId: logicalRunId('nightly', ACCOUNT, NIGHT) },
    );
  const expected = workspaces * RECIPIENTS.length;
  log(`worker ${pid}: nightly run of ${NIGHT}, then ${workspaces} PDF reports, ${expected} mails`);
  const deadline = Date.now() + timeoutS * 1000;
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  while (mails < expected) {
    if (gone) throw new Error(`the worker exited:\n${output.slice(-4000)}`);
    if (Date.now() > deadline)
      throw new Error(`${mails} of ${expected} mails after ${timeoutS} s:\n${output.slice(-4000)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
  const wallS = (performance.now() - started) / 1000;
  // The browser closes after the report job; a few more samples see the worker settle.
  await new Promise((res) => setTimeout(res, 2000));
  clearInterval(sampler);
  worker.kill('SIGTERM');
  await exited;

  const result = {
    workspaces,
    days,
    mails,
    wall_s: round(wallS, 1),
    peak_tree_pss_mb: round(peak.pss, 1),
    peak_tree_rss_mb: round(peak.rss, 1),
    peak_node_pss_mb: round(peak.nodePss, 1),
    peak_node_rss_mb: round(peak.nodeRss, 1),
    peak_chromium_pss_mb: round(peak.chromiumPss, 1),
    chromium_processes_max: peak.chromiumProcesses,
    before_chromium_tree_pss_mb: round(idle.pss, 1),
    node: NODE === process.execPath ? process.version : NODE,
    cpus: cpus().length,
    load: loadavg()
      .map((l) => round(l, 1))
      .join(' '),
    at: new Date().toISOString(),
  };
  console.log(JSON.stringify(result, null, 2));
  const out = new URL(`./results/${values.out}.json`, import.meta.url).pathname;
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  log(`written ${out}`);
}

try {
  await main();
} finally {
  await cleanups.run();
}
