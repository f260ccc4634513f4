// Accounts share a few queues (jobs/queues.ts). Many small accounts queued at once behind a large
// one must not wait for it: each gets its first request early in the run, not after the others
// are done. Measured on the simulator's arrival log.
import { describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, privateRedisForFile, waitForRun, worker } from './helpers/jobs.js';

// A Redis of its own, so that its client list holds only this test's connections.
const redis = privateRedisForFile();
const clients = async () =>
  String(await redis.admin.client('LIST'))
    .trim()
    .split('\n').length;

const SMALL = 60;

describe('fairness across accounts on shared queues', () => {
  it(`a large account and ${SMALL} small ones queued at once: every account starts within the first half of the requests, before the large one is done`, async () => {
    const s = await sim({
      accounts: [
        { name: 'big', workspaces: 40 },
        ...Array.from({ length: SMALL }, (_, i) => ({ name: `small-${i}`, workspaces: 3 })),
      ],
    });
    const config = jobsConfig(s, tempDir(), { top: { redis: { url: redis.server.url, prefix: 'fair' } } });
    const c = jobsClient(config);
    // All queued before any worker runs: the large account first, the worst case for the others.
    const runs = [];
    for (const a of s.accounts)
      runs.push(
        await enqueueRun(c.queues, c.ledger, config, {
          kind: 'sync',
          account: a.name,
          endpoints: ['visibility'],
        }),
      );
    const before = await clients();
    await worker(config);
    // What the worker process holds, whatever the number of accounts (61 here).
    const held = (await clients()) - before;
    console.log(`worker connections: ${held}`);
    expect(held).toBeLessThanOrEqual(8);
    for (const r of runs) expect((await waitForRun(config, r.runId, 120_000)).status).toBe('succeeded');

    const log = [...s.log].sort((a, b) => a.seq - b.seq);
    const firstAt = new Map<string, number>();
    log.forEach((e, i) => {
      if (e.account && !firstAt.has(e.account)) firstAt.set(e.account, i);
    });
    expect(firstAt.size).toBe(SMALL + 1);
    const latestStart = Math.max(...firstAt.values());
    // Printed for the record: where in the run the last account got its first request.
    console.log(`last first request: #${latestStart + 1} of ${log.length}`);
    // Discovery (/me, /brands) of every account is about a third of these requests: the ideal.
    expect(latestStart).toBeLessThan(log.length / 2);
    const bigLast = log.map((e) => e.account).lastIndexOf('big');
    expect(latestStart).toBeLessThan(bigLast);
  }, 120_000);
});
