// Scheduled delivery at agency scale, through the whole queued pipeline: an account of 500
// workspaces, each with a monthly report to 2 recipients, and a small second account whose runs must
// not wait for that delivery (jobs/report-queue.ts).
//   npm run bench:delivery [-- --workspaces 500 --recipients 2 --samples 3 --out delivery]
//   npm run bench:delivery -- --workspaces 20 --out delivery-try   # a quick try
//
// Setup (not measured): a private redis-server, the simulator (a compressed rate window, so 500
// workspaces sync in seconds) and one inline sync of 2026-10-31 into an fs store, copied for each
// scenario. Each scenario starts an in-process worker (2 slots per queue, as deployed), measures the
// other account's finish latency with no delivery going on, then enqueues the agency's nightly run
// of 2026-11-01, whose end queues the report job (500 HTML+JSON reports made, then mailed):
//  - `smtp`: a local smtp-server: time from the report job's start to the last mail accepted (the
//    job makes every report, then mails them), the other account's runs measured meanwhile;
//  - `stuck`: an SMTP server that accepts and never greets, the reports already made (the `smtp`
//    scenario's store, its records set back to `made`) and the report job queued as the nightly
//    run's end queues it, so the job goes straight to the server.
//    Once it holds the job, the other account's runs are measured again; then the server is
//    released and the time to the job's end is measured. (The webhook that never answers is
//    tested, not benchmarked: test/report-queue.test.ts, test/alert-bounds.test.ts.)
// The other account's finish latency: a sync of its workspaces, enqueue to the run's finished_at in
// the ledger (its finish job runs on the load queue, beside whatever the report queue holds); its
// median while a delivery goes on divided by its median alone is the ratio that must stay near 1.
// Results: stdout and bench/results/<out>.json.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { stringify } from 'yaml';
import { JOB, jobIds } from '../jobs/definitions.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { type JobsClient, openJobsClient } from '../jobs/jobs-client.js';
import { reportQueue } from '../jobs/report-queue.js';
import { parseConfig } from '../src/config/read-config.js';
import type { Config } from '../src/config/schema.js';
import { createLogger } from '../src/log.js';
import { logicalRunId } from '../src/records/run-id.js';
import { isFinishedStatus } from '../src/records/run-state.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { startWorker } from '../src/run/queued/worker.js';
import { type Simulator, startSimulator } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { startPrivateRedis } from '../test/helpers/redis-server.js';
import { silentSmtp } from '../test/helpers/stuck-servers.js';
import { CleanupStack } from './lib/cleanup.js';
import { countList } from './lib/flags.js';
import { median, round } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    workspaces: { type: 'string', default: '500' },
    recipients: { type: 'string', default: '2' },
    samples: { type: 'string', default: '3' },
    out: { type: 'string', default: 'delivery' },
  },
});
const [workspaces] = countList('workspaces', values.workspaces) as [number];
const [recipients] = countList('recipients', values.recipients) as [number];
const [samples] = countList('samples', values.samples) as [number];
if (!/^[\w-]+$/.test(values.out ?? ''))
  throw new Error(`--out: expected a file name without extension, got "${values.out}"`);

const AGENCY = 'agency';
const OTHER = 'other';
const NIGHT = '2026-11-01';
const SEED = 29;
/** 2000 requests a second: the sync of 500 workspaces takes seconds, not the real limit's hours. */
const LIMIT = { requests: 2000, windowMs: 1000 };
const SPEC = {
  accounts: [
    { name: AGENCY, workspaces },
    { name: OTHER, workspaces: 4 },
  ],
  seed: SEED,
  limit: LIMIT,
};

const cleanups = new CleanupStack();
cleanups.onSignals();
const log = (line: string) => process.stderr.write(`[delivery] ${line}\n`);
const quiet = createLogger({ level: 'silent' });

async function sim(today: string): Promise<Simulator> {
  const s = await startSimulator({ ...SPEC, today });
  cleanups.defer(() => s.close());
  return s;
}

function configOf(s: Simulator, dir: string, o: { redisUrl?: string; prefix?: string; smtpPort?: number }) {
  const env: Record<string, string> = {};
  const accounts = s.accounts.map((a) => {
    env[`BENCH_${a.name.toUpperCase()}_KEY`] = a.keys[0] as string;
    return {
      name: a.name,
      apiKey: `\${BENCH_${a.name.toUpperCase()}_KEY}`,
      baseUrl: s.url,
      requestsPerMinute: LIMIT.requests,
      rateWindowSeconds: LIMIT.windowMs / 1000,
      ...(a.name === AGENCY && o.smtpPort
        ? {
            reports: {
              schedule: { period: 'monthly', day: 1 },
              recipients: Array.from({ length: recipients }, (_, i) => `r${i}@client.example`),
              formats: ['html', 'json'],
              smtp: { host: '127.0.0.1', port: o.smtpPort, from: 'reports@agency.example' },
            },
          }
        : {}),
    };
  });
  const doc = {
    accounts,
    extract: { visibilityDays: 3, buyerIntentDays: [7] },
    sinks: { fs: { dir } },
    worker: { listen: 'off' },
    ...(o.redisUrl ? { redis: { url: o.redisUrl, prefix: o.prefix } } : {}),
  };
  return parseConfig(stringify(doc), { source: 'bench', env });
}

/** A local smtp-server counting mails; the time the last one was accepted. */
async function mailbox() {
  const box = { port: 0, mails: 0, firstAt: 0, lastAt: 0 };
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // Its reverse DNS lookup of each client cost about 100 ms a connection: the server's time, not ours.
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, cb) {
      stream.resume();
      stream.on('end', () => {
        box.mails++;
        box.lastAt = Date.now();
        box.firstAt ||= box.lastAt;
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  box.port = (server.server.address() as AddressInfo).port;
  cleanups.defer(() => new Promise<void>((r) => server.close(() => r())));
  return box;
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 600_000) {
  const ends = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > ends) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The other account's sync, enqueue to finished_at in the ledger (ms). */
async function otherFinishMs(c: JobsClient, config: Config): Promise<number> {
  const { runId } = await enqueueRun(c.queues, c.ledger, config, {
    kind: 'sync',
    account: OTHER,
    force: true,
  });
  const run = await until(`run ${runId}`, async () => {
    const r = await c.ledger.get(runId);
    return r && isFinishedStatus(r.status) ? r : undefined;
  });
  if (run.status !== 'succeeded') throw new Error(`run ${runId} ended ${run.status}`);
  return Date.parse(run.finished_at as string) - Date.parse(run.created_at as string);
}

async function otherFinishes(c: JobsClient, config: Config): Promise<number[]> {
  const out: number[] = [];
  // Not counted: the first run of a worker loads the processors' modules.
  if (!warmed.has(config.redis.prefix)) {
    await otherFinishMs(c, config);
    warmed.add(config.redis.prefix);
  }
  for (let i = 0; i < samples; i++) out.push(await otherFinishMs(c, config));
  return out;
}

const warmed = new Set<string>();

type Scenario = 'smtp' | 'stuck';

/**
 * The `smtp` scenario's store made ready to send again: each report's record back to `made` (its
 * files stay) and its sends forgotten, so the `stuck` scenario's job goes straight to the mail
 * server instead of making 500 reports again.
 */
function unsent(dir: string): void {
  const root = join(dir, 'reports');
  for (const f of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const path = join(root, f);
    if (f.endsWith('/sends')) rmSync(path, { recursive: true, force: true });
    else if (f.endsWith('delivery.json')) {
      const record = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      writeFileSync(path, JSON.stringify({ ...record, state: 'made' }));
    }
  }
}

async function scenario(kind: Scenario, base: string, redisUrl: string, s: Simulator) {
  return cleanups.scope(async (defer) => {
    const dir = mkdtempSync(join(tmpdir(), `visync-bench-delivery-${kind}-`));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(base, dir, { recursive: true });
    if (kind === 'stuck') unsent(dir);
    const box = kind === 'smtp' ? await mailbox() : undefined;
    const stuckSmtp = kind === 'stuck' ? await silentSmtp() : undefined;
    if (stuckSmtp) defer(stuckSmtp.close);
    const prefix = `bd-${kind}-${Date.now()}`;
    const config = configOf(s, dir, {
      redisUrl,
      prefix,
      smtpPort: box?.port ?? stuckSmtp?.port,
    });
    const worker = await startWorker({ config, logger: quiet, concurrency: 2 });
    defer(() => worker.close(5_000));
    const c = openJobsClient(config, 'bench');
    defer(() => c.close());
    const reports = reportQueue(c.redis, prefix);
    defer(() => reports.close());

    const alone = await otherFinishes(c, config);
    log(`${kind}: other's finish alone ${alone.join(', ')} ms`);
    const runId = logicalRunId('nightly', AGENCY, NIGHT);
    const enqueued = Date.now();
    // `smtp`: the nightly run, whose end queues the report job. `stuck`: the report job itself, as
    // that run's end queues it (the run's manifest is already in the copied store).
    if (kind === 'smtp')
      await c.queues
        .for(AGENCY)
        .add('run', { account: AGENCY, kind: 'nightly', runDate: NIGHT }, { jobId: runId });
    else
      await reports.add(
        JOB.report,
        { account: AGENCY, runDate: NIGHT },
        { jobId: jobIds.report(AGENCY, NIGHT) },
      );
    const job = async () => reports.getJob(jobIds.report(AGENCY, NIGHT));
    const started = await until('the report job to start', async () => (await job())?.processedOn);
    log(`${kind}: report job started ${round((started - enqueued) / 1000, 1)} s after it was queued`);
    const result: Record<string, unknown> = {
      other_finish_alone_ms: alone,
      queued_to_job_start_s: round((started - enqueued) / 1000, 1),
    };
    if (kind === 'smtp' && box) {
      // While the job makes and mails: the other account's runs beside it.
      const during = await otherFinishes(c, config);
      const finished = await until('the report job to end', async () => (await job())?.finishedOn);
      result.other_finish_during_delivery_ms = during;
      result.other_finish_ratio = round(median(during) / median(alone));
      result.mails = box.mails;
      result.to_last_mail_s = round((box.lastAt - started) / 1000, 1);
      // Making comes first (all reports), then mailing: the two phases.
      result.making_s = round((box.firstAt - started) / 1000, 1);
      result.mailing_s = round((box.lastAt - box.firstAt) / 1000, 1);
      result.ms_per_mail = round((box.lastAt - box.firstAt) / Math.max(1, box.mails - 1), 1);
      result.report_job_s = round((finished - started) / 1000, 1);
      // The stuck scenario starts from this store, its reports made and its mails sent.
      cpSync(dir, base, { recursive: true });
      log(`${kind}: ${box.mails} mails, the last ${result.to_last_mail_s} s after the job started`);
    } else if (stuckSmtp) {
      await until('the SMTP server to hold the job', async () => stuckSmtp.held() > 0);
      const heldAt = Date.now();
      const during = await otherFinishes(c, config);
      const stillHeld = stuckSmtp.held() > 0 && !(await job())?.finishedOn;
      const releasedAt = Date.now();
      stuckSmtp.release();
      const finished = await until('the report job to end', async () => (await job())?.finishedOn);
      result.other_finish_during_stuck_ms = during;
      result.other_finish_ratio = round(median(during) / median(alone));
      result.job_still_held_when_measured = stillHeld;
      result.held_before_release_s = round((releasedAt - heldAt) / 1000, 1);
      result.job_end_after_release_s = round((finished - releasedAt) / 1000, 1);
      log(
        `${kind}: other's finish while stuck ${during.join(', ')} ms; job ended ${result.job_end_after_release_s} s after release`,
      );
    }
    return result;
  });
}

async function main() {
  const redis = await startPrivateRedis();
  cleanups.defer(() => redis.stop());
  const base = mkdtempSync(join(tmpdir(), 'visync-bench-delivery-'));
  cleanups.defer(() => rmSync(base, { recursive: true, force: true }));
  // October's last day synced inline: the nightly run of 2026-11-01 makes October's reports due.
  const october = await sim('2026-10-31');
  const t0 = Date.now();
  const r = await runInline({
    config: configOf(october, base, {}),
    store: new FsObjectStore(base),
    logger: quiet,
    runDate: '2026-10-31',
    accounts: [AGENCY],
  });
  if (r.status !== 'succeeded') throw new Error(`setup sync ended ${r.status}`);
  log(`setup: ${workspaces} workspaces synced in ${round((Date.now() - t0) / 1000, 1)} s`);
  const november = await sim(NIGHT);
  const smtp = await scenario('smtp', base, redis.url, november);
  const stuck = await scenario('stuck', base, redis.url, november);
  const out = {
    measured_at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    pipeline: 'queued: an in-process worker, the simulator, a private redis-server, an fs store',
    workspaces,
    recipients,
    samples,
    smtp,
    stuck,
  };
  const file = join(import.meta.dirname, 'results', `${values.out}.json`);
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify(out, null, 2));
  log(`written to ${file}`);
}

try {
  await main();
} finally {
  await cleanups.run();
}
