// Queued mode on a real Redis Cluster (three masters started for this file): BullMQ's queues, the
// budget and the ledger keep each script and MULTI within one hash slot, and the shard queues
// spread over the masters. One queued run end to end, through the ioredis Cluster client.

import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { readStatus } from '../jobs/status.js';
import { readManifest } from '../src/records/manifest.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, waitForRun, worker } from './helpers/jobs.js';
import { type PrivateCluster, startPrivateCluster } from './helpers/redis-cluster.js';

const run = promisify(execFile);
let cluster: PrivateCluster;
beforeAll(async () => {
  cluster = await startPrivateCluster();
}, 60_000);
afterAll(() => cluster?.stop());

/** Keys under the prefix on one master (a master holds only the slots it serves). */
async function keysOn(port: number, prefix: string): Promise<string[]> {
  const { stdout } = await run('redis-cli', ['-p', String(port), '--scan', '--pattern', `${prefix}:*`]);
  return stdout.split('\n').filter(Boolean);
}

describe('Redis Cluster', () => {
  it('a queued sync of three accounts runs end to end; the queues spread over the masters', async () => {
    const s = await sim({
      accounts: ['acme', 'beta', 'gamma'].map((name) => ({ name, workspaces: 3 })),
    });
    const dir = tempDir();
    const prefix = `c-${randomUUID().slice(0, 8)}`;
    const config = jobsConfig(s, dir, { top: { redis: { url: cluster.url, prefix, cluster: true } } });
    expect(config.redis.cluster).toBe(true);
    await worker(config);
    const c = jobsClient(config);
    const runs = [];
    for (const a of s.accounts)
      runs.push(await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: a.name }));
    for (const r of runs) {
      const done = await waitForRun(config, r.runId, 60_000);
      expect(done.status).toBe('succeeded');
      expect(done.workspaces_done).toBe(3);
      expect(done.calls).toBeGreaterThan(3);
      const manifest = await readManifest(new FsObjectStore(dir), done.account, r.runId);
      expect(manifest?.status).toBe('succeeded');
      expect(manifest?.workspaces.every((w) => w.status === 'succeeded')).toBe(true);
    }
    // Every request went through the shared budget: no 429 from the simulator.
    expect(s.log.filter((e) => e.status === 429)).toHaveLength(0);

    const status = await readStatus({ ...c, config });
    expect(status.accounts.map((a) => a.last_success?.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    expect(status.queue.completed).toBeGreaterThan(0);

    // The deployment's keys are not all in one slot's node: the shard queues spread.
    const perNode = await Promise.all(cluster.ports.map((p) => keysOn(p, prefix)));
    expect(perNode.filter((keys) => keys.length > 0).length).toBeGreaterThanOrEqual(2);
  });
});
