// Scheduled reports never hold up a run (docs/operations.md, "Queues"): report jobs have a queue of
// their own (jobs/report-queue.ts). Real Redis, a real in-process worker, the simulator, an SMTP
// server that never greets and a webhook that never answers: while they hold two accounts' report
// jobs, a third account's run still finishes, its manifest written, before they are released.
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { readStatus } from '../jobs/status.js';
import { readDelivery } from '../src/delivery/scheduled/records.js';
import { readManifest } from '../src/records/manifest.js';
import { logicalRunId } from '../src/records/run-id.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { jobsClient, jobsConfig, waitForRun, worker } from './helpers/jobs.js';
import { syncNight } from './helpers/nights.js';
import { silentSmtp, silentWebhook } from './helpers/stuck-servers.js';
import { waitFor } from './helpers/wait-for.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

const RUN_DATE = '2026-11-01';
const SLOW = ['slow-a', 'slow-b'];

describe('report queue', () => {
  it("a mail server that never greets and a webhook that never answers hold the report jobs, not another account's run", async () => {
    const [smtp, hook] = [await silentSmtp(), await silentWebhook()];
    closers.push(smtp.close, hook.close);
    const spec = {
      accounts: [...SLOW.map((name) => ({ name, workspaces: 2 })), { name: 'fast', workspaces: 1 }],
      seed: 29,
    };
    const dir = h.tempDir();
    // October's last day synced: the nightly runs of 2026-11-01 make October's reports due.
    expect((await syncNight(dir, spec, '2026-10-31', { accounts: SLOW })).status).toBe('succeeded');
    const s = await h.sim({ ...spec, today: RUN_DATE });
    const reports = {
      schedule: { period: 'monthly', day: 1 },
      recipients: ['cmo@client.example'],
      formats: ['html', 'json'],
      smtp: { host: '127.0.0.1', port: smtp.port, from: 'reports@agency.example' },
    };
    const config = jobsConfig(s, dir, {
      accounts: Object.fromEntries(SLOW.map((a) => [a, { reports }])),
      top: {
        alerts: { webhook: hook.url, on: ['stale', 'report'] },
        // Locks as long as production's: making four reports on a busy test machine can hold the
        // event loop past a 2 s lock, and a stalled job would go back to waiting mid-send.
        jobs: { lockSeconds: 30, maxBudgetWaitSeconds: 1 },
      },
    });
    // Two slots on the finish queue, as in production: two stuck report jobs there held them both.
    await worker(config, 2);
    const c = jobsClient(config);
    for (const account of SLOW)
      await c.queues
        .for(account)
        .add(
          'run',
          { account, kind: 'nightly', runDate: RUN_DATE },
          { jobId: logicalRunId('nightly', account, RUN_DATE) },
        );
    for (const account of SLOW) await waitForRun(config, logicalRunId('nightly', account, RUN_DATE));
    // Both accounts' report jobs are stuck on the servers now.
    let last: Record<string, number> = {};
    const reportJobs = async () => {
      last = (await readStatus({ ...c, config })).report_queue.queue;
      return last;
    };
    await waitFor(async () => hook.held() >= 2 && smtp.held() >= 2 && (await reportJobs()).active === 2, {
      what: () =>
        `both report jobs stuck; the webhook holds ${hook.held()} requests, the SMTP server ${smtp.held()} connections; ${JSON.stringify(last)}`,
    });

    const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'fast' });
    expect((await waitForRun(config, runId)).status).toBe('succeeded');
    const store = new FsObjectStore(dir);
    expect((await readManifest(store, 'fast', runId))?.status).toBe('succeeded');
    // Finished while the stuck servers still held both report jobs: `visync status` shows them.
    const held = await readStatus({ ...c, config });
    expect(held.report_queue.queue.active).toBe(2);

    smtp.release();
    hook.release();
    await waitFor(async () => (await readStatus({ ...c, config })).report_queue.queue.completed === 2, {
      what: 'both report jobs to end once the servers let go',
      timeoutMs: 60_000,
    });
    // Each stuck delivery ended in a recorded state: made, and its mail failed with the reason.
    for (const account of SLOW)
      for (const brand of s.accounts.find((a) => a.name === account)?.workspaceIds ?? []) {
        const record = await readDelivery(store, account, brand, '2026-10');
        expect(record?.state).toBe('failed');
        expect(record?.reason).toBeTruthy();
      }
  });
});
