// In-process workers and queue clients against the test Redis, each test with its own key prefix,
// all closed after the test.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue.js';
import { finishQueue } from '../../jobs/finish-queue.js';
import { type JobsClient, openJobsClient } from '../../jobs/jobs-client.js';
import type { LedgerRun } from '../../jobs/ledger.js';
import { parseConfig } from '../../src/config/read-config.js';
import type { Config } from '../../src/config/schema.js';
import { isFinishedStatus } from '../../src/records/run-state.js';
import { startWorker, type WorkerHandle } from '../../src/run/queued/worker.js';
import { type ConfigOverrides, configFile, configFor, memoryLogger, tempDir } from './harness.js';
import { type PrivateRedis, startPrivateRedis } from './redis-server.js';
import { waitFor } from './wait-for.js';

const handles: WorkerHandle[] = [];
const clients: JobsClient[] = [];
/** Closes what this helper opened for the test (also registered per file by test/setup/cleanups.ts). */
export async function closeJobs(): Promise<void> {
  while (handles.length) await handles.pop()?.close(5000);
  while (clients.length) await clients.pop()?.close();
}
afterEach(closeJobs);

/** A config with Redis under a fresh prefix, short locks and a 1 s budget wait. */
export function jobsConfig(s: Parameters<typeof configFor>[0], dir: string, o: ConfigOverrides = {}): Config {
  return configFor(s, dir, withJobs(o));
}

/** The same config written to a file for CLI commands run in this process (see configFile). */
export function jobsConfigFile(
  s: Parameters<typeof configFor>[0],
  dir: string,
  o: ConfigOverrides = {},
): { config: Config; path: string } {
  const { path, yaml, env } = configFile(s, dir, withJobs(o));
  return { config: parseConfig(yaml, { source: path, env }), path };
}

function withJobs(o: ConfigOverrides): ConfigOverrides {
  return {
    ...o,
    top: {
      redis: { url: inject('redisUrl'), prefix: `t-${randomUUID().slice(0, 8)}` },
      jobs: { lockSeconds: 2, maxBudgetWaitSeconds: 1 },
      ...(o.top ?? {}),
    },
  };
}

/**
 * A sync of acme on `concurrency` worker slots over a private redis-server, with short job locks
 * (`lockSeconds`, 1 s unless given), so that freezing that Redis for a few lock durations makes its
 * jobs stall. The run's id and its queue.
 */
export async function syncWithShortLocks(
  s: Parameters<typeof configFor>[0],
  redisUrl: string,
  concurrency: number,
  o: ConfigOverrides = {},
  lockSeconds = 1,
) {
  const cfg = jobsConfig(s, tempDir(), {
    ...o,
    top: {
      redis: { url: redisUrl, prefix: `sl-${randomUUID().slice(0, 8)}` },
      jobs: { lockSeconds, maxBudgetWaitSeconds: 1 },
    },
  });
  await worker(cfg, concurrency);
  const c = jobsClient(cfg);
  const { runId } = await enqueueRun(c.queues, c.ledger, cfg, { kind: 'sync', account: 'acme' });
  return { cfg, runId, queue: c.queues.for('acme') };
}

/** A private redis-server for the file's tests, and an admin connection to freeze, flush or kill its clients. */
export function privateRedisForFile(): { readonly server: PrivateRedis; readonly admin: Redis } {
  const r = {} as { server: PrivateRedis; admin: Redis };
  beforeAll(async () => {
    r.server = await startPrivateRedis();
    r.admin = new Redis(r.server.url);
  });
  afterAll(async () => {
    await r.admin.quit();
    await r.server.stop();
  });
  return r;
}

export async function worker(
  config: Config,
  concurrency = 4,
  logger = memoryLogger('warn').logger,
): Promise<WorkerHandle> {
  const h = await startWorker({ config, logger, concurrency });
  handles.push(h);
  return h;
}

export function jobsClient(config: Config): JobsClient {
  const c = openJobsClient(config, 'test');
  clients.push(c);
  return c;
}

/** Waits on the ledger until the run's record satisfies `done` (`what` it waits for, for the timeout's message). */
export async function waitForRunState(
  client: JobsClient,
  runId: string,
  done: (r: LedgerRun) => boolean,
  { what, timeoutMs = 30_000 }: { what: string; timeoutMs?: number },
): Promise<LedgerRun> {
  let last: LedgerRun | undefined;
  return waitFor(
    async () => {
      last = await client.ledger.get(runId);
      return last && done(last) ? last : undefined;
    },
    { what: () => `run ${runId} ${what}: ${JSON.stringify(last)}`, timeoutMs, intervalMs: 100 },
  );
}

/** Waits on the ledger until the run has finished. */
export async function waitForRun(config: Config, runId: string, timeoutMs = 30_000): Promise<LedgerRun> {
  return waitForRunState(jobsClient(config), runId, (r) => isFinishedStatus(r.status), {
    what: 'to finish',
    timeoutMs,
  });
}

/** Enqueues a sync of the account and waits for its run to end. */
export async function syncToEnd(
  config: Config,
  account = 'acme',
): Promise<{ runId: string; run: LedgerRun }> {
  const c = jobsClient(config);
  const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account });
  return { runId, run: await waitForRun(config, runId) };
}

/** waitFor (./wait-for.ts) in the argument order the job tests use. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  await waitFor(check, { what, timeoutMs });
}

/**
 * Waits until the account's queue holds no job that could still call the API: none waiting,
 * active or delayed (the schedules' own `repeat:` jobs aside). What a test waits on before it
 * asserts that no more calls were made, instead of sleeping.
 */
export async function untilQueueIdle(config: Config, account = 'acme'): Promise<void> {
  const queue = jobsClient(config).queues.for(account);
  await until(`the queue of ${account} idle`, async () => {
    const counts = await queue.getJobCounts('active', 'waiting', 'prioritized', 'waiting-children');
    if (Object.values(counts).some((n) => n > 0)) return false;
    return (await queue.getDelayed()).every((j) => j.id?.startsWith('repeat:'));
  });
}

/**
 * What a run that has not ended is stuck on, for a test's failure message: its ledger record, and
 * every job of the run in its account's shard queue and in the finish queue (state, attempts, why
 * it failed, how often it stalled or stepped aside for budget).
 */
export async function runReport(config: Config, runId: string, account = 'acme'): Promise<string> {
  const c = jobsClient(config);
  const finishes = finishQueue(c.redis, config.redis.prefix);
  try {
    const run = await c.ledger.get(runId);
    const lines = [`ledger: ${JSON.stringify(run)}`];
    for (const queue of [c.queues.for(account), finishes]) {
      const jobs = await queue.getJobs([
        'active',
        'waiting',
        'prioritized',
        'delayed',
        'waiting-children',
        'completed',
        'failed',
      ]);
      for (const job of jobs.filter((j) => j?.id?.startsWith(runId))) {
        const data = job.data as { budgetDelays?: number };
        lines.push(
          `${queue.name} ${job.id} (${job.name}): ${await job.getState()}, attempts ${job.attemptsMade}, ` +
            `stalled ${job.stalledCounter}, budget delays ${data.budgetDelays ?? 0}` +
            (job.failedReason ? `, failed: ${job.failedReason}` : ''),
        );
      }
    }
    return lines.join('\n');
  } finally {
    await finishes.close();
  }
}
