// The job system in one process against real Redis and real HTTP: flows, the ledger, dedup,
// schedules, windows, budgets. Multi-process behaviour (SIGKILL, SIGTERM, two workers) is in
// test/workers.test.ts.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { openJobsClient } from '../jobs/client.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { startWorker, type WorkerHandle } from '../jobs/worker.js';
import type { Config } from '../src/config/schema.js';
import { readManifest } from '../src/runs/manifest.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { sleep } from '../src/util/time.js';
import { type ConfigOverrides, configFor, memoryLogger, sim, tempDir } from './helpers/harness.js';

const handles: WorkerHandle[] = [];
const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (handles.length) await handles.pop()?.close(5000);
  while (clients.length) await clients.pop()?.close();
});

function jobsConfig(s: Parameters<typeof configFor>[0], dir: string, o: ConfigOverrides = {}): Config {
  return configFor(s, dir, {
    ...o,
    top: {
      redis: { url: inject('redisUrl'), prefix: `t-${randomUUID().slice(0, 8)}` },
      jobs: { lockSeconds: 2, maxBudgetWaitSeconds: 1 },
      ...(o.top ?? {}),
    },
  });
}

async function worker(config: Config, concurrency = 4): Promise<WorkerHandle> {
  const h = await startWorker({ config, logger: memoryLogger('warn').logger, concurrency });
  handles.push(h);
  return h;
}

function client(config: Config) {
  const c = openJobsClient(config, 'test');
  clients.push(c);
  return c;
}

async function waitForRun(config: Config, runId: string, timeoutMs = 30_000) {
  const c = client(config);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.ledger.get(runId);
    if (r && ['succeeded', 'partial', 'failed'].includes(r.status)) return r;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish: ${JSON.stringify(r)}`);
    await sleep(100);
  }
}

describe('jobs on BullMQ', () => {
  it('an enqueued sync fans out per workspace, lands every workspace and writes the manifest', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 5 }] });
    const dir = tempDir();
    const config = jobsConfig(s, dir);
    await worker(config);
    const c = client(config);
    const { runId, created } = await enqueueRun(c.queue, c.ledger, config, { kind: 'sync', account: 'acme' });
    expect(created).toBe(true);
    const run = await waitForRun(config, runId);
    expect(run.status).toBe('succeeded');
    expect(run.workspaces_done).toBe(5);
    const m = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    expect(m.status).toBe('succeeded');
    expect(m.kind).toBe('sync');
    expect(m.workspaces.map((w) => w.brand_id).sort()).toEqual([...s.accounts[0]!.workspaceIds].sort());
    expect(m.files.filter((f) => f.key.startsWith('raw/'))).toHaveLength(2 + 5 * 7);
    expect(m.files.some((f) => f.key.startsWith('tables/visibility_daily/'))).toBe(true);
    expect(m.requests.calls).toBe(2 + 5 * 7);
  });
});
