// The queue board as a person sees it: a real headless Chromium (Debian's `chromium`, driven by
// playwright-core) opens the worker's /ui/ after a run into BigQuery finished (the fake BigQuery),
// and saves screenshots under test-results/.
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { FINISH_QUEUE, finishQueue } from '../jobs/finish-queue.js';
import { batchJobId, warehouseId } from '../jobs/load-batches.js';
import { startOpsServer } from '../jobs/ops-server.js';
import { queueName } from '../jobs/queues.js';
import { fakeBigQuery, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, until, waitForRun, worker } from './helpers/jobs.js';
import { chromiumBrowser } from './helpers/shared-chromium.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = new URL('../test-results/', import.meta.url).pathname;
const CREDENTIALS = { user: 'ops', password: 'board-test-password' };

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the browser test needs Debian's chromium (apt-get install -y chromium)`,
    );
  }
  // The run's shared browser (test/setup/global-chromium.ts): close() ends only this connection.
  const browser = await chromiumBrowser();
  closers.push(() => browser.close());
  return browser;
}

describe('queue board in a browser', () => {
  it("loads, lists every queue of the deployment (the load batches' too) and shows a finished run and its batch", async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'globex', workspaces: 1 },
      ],
    });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const config = jobsConfig(s, dir, {
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: bq.url } },
    });
    const server = await startOpsServer({
      address: { host: '127.0.0.1', port: 0 },
      // Behind basic auth, as on any non-loopback address: the page, its assets and API calls.
      credentials: CREDENTIALS,
      readOnly: true,
      logger: memoryLogger('warn').logger,
    });
    closers.push(() => server.close());
    await server.attach(await worker(config));
    const c = jobsClient(config);
    const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: 'acme' });
    expect((await waitForRun(config, runId)).status).toBe('succeeded');
    // The batch that loaded the run ends it in the ledger, then its job completes.
    const batches = finishQueue(c.redis, config.redis.prefix);
    closers.push(() => batches.close());
    const batchJob = batchJobId(warehouseId(config.sinks)!, 0);
    await until(
      'the load batch job completed',
      async () => (await batches.getJobState(batchJob)) === 'completed',
    );

    const browser = await launch();
    const page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      httpCredentials: { username: CREDENTIALS.user, password: CREDENTIALS.password },
    });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    mkdirSync(SHOTS, { recursive: true });

    await page.goto(`${server.url}/ui/`);
    for (const queue of [queueName('acme'), queueName('globex'), FINISH_QUEUE])
      await page.getByText(queue).first().waitFor();
    expect(await page.title()).toBe('visync');
    await page.screenshot({ path: `${SHOTS}ui-board.png`, fullPage: true });

    // The run's jobs are in the completed list of its queue, the load job (which wrote the
    // manifest) among them.
    await page.goto(`${server.url}/ui/queue/${queueName('acme')}?status=completed`);
    await page.getByText(`${runId}.load`).first().waitFor();
    await page.screenshot({ path: `${SHOTS}ui-queue-completed.png` });

    // The batch that loaded the run, in the load batches' queue.
    await page.goto(`${server.url}/ui/queue/${FINISH_QUEUE}?status=completed`);
    await page.getByText(batchJob).first().waitFor();
    await page.screenshot({ path: `${SHOTS}ui-load-batches-completed.png` });
    expect(errors).toEqual([]);
  });
});
