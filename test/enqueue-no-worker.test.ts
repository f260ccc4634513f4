// enqueue --wait with nobody working the queue: it says so once, and keeps waiting.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { type JobsClient, openJobsClient } from '../jobs/jobs-client.js';
import { queueName } from '../jobs/queues.js';
import { waitForRuns } from '../src/cli/enqueue-wait.js';
import { parseConfig } from '../src/config/read-config.js';
import { startWorker, type WorkerHandle } from '../src/run/queued/worker.js';
import { capture, configYaml, memoryLogger, sim, tempDir } from './helpers/harness.js';

const closing: (JobsClient | WorkerHandle)[] = [];
afterEach(async () => {
  while (closing.length) {
    const c = closing.pop();
    if (c && 'ledger' in c) await c.close();
    else await c?.close(5000);
  }
});

async function setup() {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
  const { yaml, env } = configYaml(s, tempDir(), {
    top: { redis: { url: inject('redisUrl'), prefix: `nw-${randomUUID().slice(0, 8)}` } },
  });
  const config = parseConfig(yaml, { source: 'test-config.yaml', env });
  const client = openJobsClient(config, 'visync enqueue');
  closing.push(client);
  const { runId } = await enqueueRun(client.queues, client.ledger, config, { kind: 'sync', account: 'acme' });
  return { config, client, runId };
}

describe('enqueue --wait', () => {
  it('says once, naming the account and run, that no worker takes its runs, then keeps waiting', async () => {
    const { client, runId } = await setup();
    const c = capture();
    const runs = await waitForRuns(client, [runId], c.io, { timeoutS: 2, noWorkerAfterMs: 1000 });
    expect(runs).toBeUndefined();
    const notices = c.err.filter((l) => l.includes('no worker'));
    // In the user's words: the account, its run and the command; not the internal queue shard.
    expect(notices).toEqual([
      `visync: no worker is taking account acme's runs (${runId}) yet; start one with visync worker, with the same redis.url and redis.prefix as this config`,
    ]);
    expect(notices[0]).not.toContain(queueName('acme'));
    // Still waiting after the notice, until the timeout.
    expect(c.err.findIndex((l) => l.includes('timed out'))).toBeGreaterThan(c.err.indexOf(notices[0]!));
  });

  it('says nothing when a worker is connected', async () => {
    const { config, client, runId } = await setup();
    closing.push(await startWorker({ config, logger: memoryLogger('warn').logger, concurrency: 2 }));
    const c = capture();
    // Looks for workers on its first pass, before the run can have finished.
    const runs = await waitForRuns(client, [runId], c.io, { timeoutS: 20, noWorkerAfterMs: 0 });
    expect(runs?.[0]?.status).toBe('succeeded');
    expect(c.err.filter((l) => l.includes('no worker'))).toEqual([]);
  });
});
