// In-process workers and queue clients against the test Redis, each test with its own key prefix,
// all closed after the test.
import { randomUUID } from 'node:crypto';
import { afterEach, inject } from 'vitest';
import { type JobsClient, openJobsClient } from '../../jobs/client.js';
import type { LedgerRun } from '../../jobs/ledger.js';
import { startWorker, type WorkerHandle } from '../../jobs/worker.js';
import type { Config } from '../../src/config/schema.js';
import { sleep } from '../../src/util/time.js';
import { type ConfigOverrides, configFor, memoryLogger } from './harness.js';

const handles: WorkerHandle[] = [];
const clients: JobsClient[] = [];
afterEach(async () => {
  while (handles.length) await handles.pop()?.close(5000);
  while (clients.length) await clients.pop()?.close();
});

/** A config with Redis under a fresh prefix, short locks and a 1 s budget wait. */
export function jobsConfig(s: Parameters<typeof configFor>[0], dir: string, o: ConfigOverrides = {}): Config {
  return configFor(s, dir, {
    ...o,
    top: {
      redis: { url: inject('redisUrl'), prefix: `t-${randomUUID().slice(0, 8)}` },
      jobs: { lockSeconds: 2, maxBudgetWaitSeconds: 1 },
      ...(o.top ?? {}),
    },
  });
}

export async function worker(config: Config, concurrency = 4): Promise<WorkerHandle> {
  const h = await startWorker({ config, logger: memoryLogger('warn').logger, concurrency });
  handles.push(h);
  return h;
}

export function jobsClient(config: Config): JobsClient {
  const c = openJobsClient(config, 'test');
  clients.push(c);
  return c;
}

/** Polls the ledger until the run is in a terminal state. */
export async function waitForRun(config: Config, runId: string, timeoutMs = 30_000): Promise<LedgerRun> {
  const c = jobsClient(config);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.ledger.get(runId);
    if (r && ['succeeded', 'partial', 'failed'].includes(r.status)) return r;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish: ${JSON.stringify(r)}`);
    await sleep(100);
  }
}

/** Polls until `check` holds (an event the test waits on, never a fixed sleep). */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
