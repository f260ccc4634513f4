// Accounts share a few queues (jobs/queues.ts), and a worker finishes the accounts it started
// before it starts new ones (jobs/definitions.ts, STAGE). An account that waits for its budget
// must not hold up the others all the same: its jobs step aside and free their slots, so many
// small accounts queued behind a large one that has run out of budget all finish before it does.
// Measured on the simulator's arrival log (order of arrivals, never their times).
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

// 30: more than the 16 slots of the four shards, nine of them on the large account's shard,
// where its jobs would hold the slots if they did not step aside (60 showed nothing more).
const SMALL = 30;

describe('fairness across accounts on shared queues', () => {
  it(`a large account out of budget and ${SMALL} small ones queued at once: every small one finishes before the large one`, async () => {
    const s = await sim({
      accounts: [
        { name: 'big', workspaces: 40 },
        ...Array.from({ length: SMALL }, (_, i) => ({ name: `small-${i}`, workspaces: 3 })),
      ],
    });
    // The large account's 42 calls take four windows of its budget (10 per 3 s) more than its first.
    const config = jobsConfig(s, tempDir(), {
      accounts: { big: { requestsPerMinute: 10, rateWindowSeconds: 3 } },
      top: { redis: { url: redis.server.url, prefix: 'fair' } },
    });
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
    // What the worker process holds, whatever the number of accounts (31 here): 9 since report jobs
    // have a queue of their own, whose worker blocks on one more (docs/deploying.md).
    const held = (await clients()) - before;
    console.log(`worker connections: ${held}`);
    expect(held).toBeLessThanOrEqual(9);
    for (const r of runs) expect((await waitForRun(config, r.runId, 120_000)).status).toBe('succeeded');

    const log = [...s.log].sort((a, b) => a.seq - b.seq);
    const lastAt = new Map<string, number>();
    log.forEach((e, i) => {
      if (e.account) lastAt.set(e.account, i);
    });
    expect(lastAt.size).toBe(SMALL + 1);
    const bigLast = lastAt.get('big') as number;
    const smallLast = Math.max(...[...lastAt].filter(([a]) => a !== 'big').map(([, i]) => i));
    // Printed for the record: where the last small account's last request came.
    console.log(
      `last small request: #${smallLast + 1} of ${log.length}; last of the large one: #${bigLast + 1}`,
    );
    expect(smallLast).toBeLessThan(bigLast);
  }, 120_000);
});
