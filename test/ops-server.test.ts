// The worker's HTTP endpoint against a real worker, real Redis, the simulator and the fake
// BigQuery: what /metrics shows after a run, /readyz when Redis goes away, basic auth off
// loopback, the read-only board, and the worker command refusing a setup that cannot work.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { jobIds } from '../jobs/definitions.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { FINISH_QUEUE, finishQueue } from '../jobs/finish-queue.js';
import { batchJobId, warehouseId } from '../jobs/load-batches.js';
import {
  type Credentials,
  EndpointError,
  endpointCredentials,
  type OpsServer,
  parseListen,
  startOpsServer,
} from '../jobs/ops-server.js';
import { QUEUE_SHARDS, queueName, shardQueueName } from '../jobs/queues.js';
import { REPORT_QUEUE } from '../jobs/report-queue.js';
import type { Config } from '../src/config/schema.js';
import { readManifest } from '../src/records/manifest.js';
import { startWorker } from '../src/run/queued/worker.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { type FakeBigQuery, startFakeBigQuery } from './fakes/bigquery-server.js';
import { runVisync, startVisync, waitForOutput } from './helpers/cli-process.js';
import { configYaml, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, until, waitForRun, worker } from './helpers/jobs.js';
import { type PrivateRedis, startPrivateRedis } from './helpers/redis-server.js';
import { writeConfig } from './helpers/worker-process.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function ops(
  o: { host?: string; credentials?: Credentials; readOnly?: boolean } = {},
): Promise<OpsServer> {
  const server = await startOpsServer({
    address: { host: o.host ?? '127.0.0.1', port: 0 },
    credentials: o.credentials,
    readOnly: o.readOnly ?? true,
    logger: memoryLogger('warn').logger,
    redisTimeoutMs: 500,
  });
  closers.push(() => server.close());
  return server;
}

/** A fresh account name: the counters live as long as the test process, so each test has its own. */
const accountName = () => `m-${randomUUID().slice(0, 8)}`;

/** The value of one sample of the Prometheus text, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/** The sum of every sample of `name` whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string>): number {
  return text
    .split('\n')
    .filter(
      (l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    )
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('worker HTTP endpoint', () => {
  it('after a run, /metrics shows the requests, rows loaded, run duration, queue jobs and last success', async () => {
    const name = accountName();
    // One 429 with Retry-After: 1 s pauses the account, so the next request waits for its budget.
    const s = await sim({
      accounts: [{ name, workspaces: 3 }],
      faults: [{ endpoint: 'brands', kind: 'status', status: 429, retryAfter: 1 }],
    });
    const bq: FakeBigQuery = await startFakeBigQuery();
    closers.push(() => bq.close());
    const dir = tempDir();
    const config = jobsConfig(s, dir, {
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: bq.url } },
    });
    const server = await ops();
    await server.attach(await worker(config));
    const c = jobsClient(config);
    const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind: 'sync', account: name });
    const run = await waitForRun(config, runId);
    expect(run.status).toBe('succeeded');
    // The batch that loaded the run ends it in the ledger, then its job completes; the run's finish
    // job, in the same queue, is then no longer active either.
    const batches = finishQueue(c.redis, config.redis.prefix);
    closers.push(() => batches.close());
    const batchJob = batchJobId(warehouseId(config.sinks)!, 0);
    await until('the load batch completed and its queue idle', async () => {
      const n = await batches.getJobCounts('active', 'waiting', 'prioritized');
      return Object.values(n).every((v) => v === 0) && (await batches.getJobState(batchJob)) === 'completed';
    });

    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    // Every request the run made, by endpoint and status as the API saw them, the 429 among them.
    expect(run.calls).toBeGreaterThan(0);
    expect(total(text, 'visync_api_requests_total', { account: name })).toBe(run.calls);
    const seen = new Map<string, number>();
    for (const e of s.log.filter((l) => l.account === name)) {
      const k = `${e.endpoint} ${e.status}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    expect(seen.get('brands 429')).toBe(1);
    for (const [k, n] of seen) {
      const [endpoint, status] = k.split(' ') as [string, string];
      expect(sample(text, 'visync_api_requests_total', { account: name, endpoint, status }), k).toBe(n);
    }
    expect(sample(text, 'visync_rate_limited_total', { account: name })).toBe(1);
    expect(run.rate_limited).toBe(1);
    expect(run.waited_ms).toBeGreaterThan(0);
    expect(sample(text, 'visync_budget_wait_seconds_total', { account: name })).toBeCloseTo(
      run.waited_ms / 1000,
      1,
    );
    // The rows BigQuery took, per table, as the manifest records them.
    const manifest = (await readManifest(new FsObjectStore(dir), name, runId))!;
    const loaded = manifest.loads.filter((l) => l.status === 'succeeded' && l.rows > 0);
    expect(loaded.length).toBeGreaterThan(0);
    for (const l of loaded)
      expect(sample(text, 'visync_rows_loaded_total', { table: l.table }), l.table).toBeGreaterThanOrEqual(
        l.rows,
      );
    expect(
      sample(text, 'visync_run_duration_seconds_count', { kind: 'sync', status: 'succeeded' }),
    ).toBeGreaterThan(0);
    // Read from Redis at scrape time: the finished jobs and the ledger's last success.
    // This test's prefix holds this run (its run job, its load job, its workspace jobs, the finish
    // job its load job handed it to and the load batch that loaded it, all completed), the load
    // batches' first sweep (at the worker's start, completed), the nightly schedule's next job and
    // the next sweep (delayed). A workspace job covers several workspaces: as many as the run put
    // in one (recorded on its load job).
    const perJob =
      (await c.queues.for(name).getJob(jobIds.workspacesDone(runId)))?.data.workspacesPerJob ?? 1;
    const workspaceJobs = Math.ceil(s.accounts[0]!.workspaceIds.length / perJob);
    expect(sample(text, 'visync_queue_jobs', { state: 'completed' })).toBe(1 + 1 + workspaceJobs + 1 + 1 + 1);
    expect(sample(text, 'visync_queue_jobs', { state: 'failed' })).toBe(0);
    expect(sample(text, 'visync_queue_jobs', { state: 'delayed' })).toBe(1 + 1);
    expect(sample(text, 'visync_last_success_timestamp_seconds', { account: name })).toBe(
      Date.parse(run.finished_at!) / 1000,
    );
    expect(sample(text, 'visync_redis_up')).toBe(1);
    // The standard process metrics keep their standard names.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeDefined();
  });

  it('/readyz is 200 while Redis answers and the workers run, then 503 naming Redis once it stops', async () => {
    const redis: PrivateRedis = await startPrivateRedis();
    closers.push(() => redis.stop());
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const config = jobsConfig(s, tempDir(), {
      top: { redis: { url: redis.url, prefix: `t-${randomUUID().slice(0, 8)}` } },
    });
    const server = await ops();
    const starting = await fetch(`${server.url}/readyz`);
    expect(starting.status).toBe(503);
    expect(await starting.text()).toMatch(/^not ready: starting/);

    // Its own worker, stopped with a short grace: its Redis will be gone, so its jobs cannot be handed back.
    const h = await startWorker({ config, logger: memoryLogger('warn').logger, concurrency: 1 });
    closers.push(() => h.close(100));
    await server.attach(h);
    const ready = await fetch(`${server.url}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ready\n']);

    await redis.stop();
    const down = await fetch(`${server.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.text()).toMatch(/^not ready: .*Redis/);
    // The process still serves: health stays green, metrics answer without the Redis gauges.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(metrics, 'visync_redis_up')).toBe(0);
    expect(sample(metrics, 'visync_queue_jobs')).toBeUndefined();
  });

  it('off loopback, basic auth guards /metrics, /readyz and /ui/ (401 without or with a wrong password); /healthz stays open', async () => {
    const credentials = { user: 'ops', password: `pw-${randomUUID()}` };
    const server = await ops({ host: '0.0.0.0', credentials });
    const port = new URL(server.url).port;
    const base = `http://127.0.0.1:${port}`;
    for (const path of ['/metrics', '/readyz', '/ui/']) {
      const none = await fetch(base + path);
      expect(none.status, path).toBe(401);
      expect(none.headers.get('www-authenticate'), path).toMatch(/^Basic realm="visync"/);
      const wrong = await fetch(base + path, { headers: { authorization: basic('ops', 'guess') } });
      expect(wrong.status, path).toBe(401);
    }
    const ok = await fetch(`${base}/metrics`, {
      headers: { authorization: basic(credentials.user, credentials.password) },
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('visync_redis_up');
    const ui = await fetch(`${base}/ui/`, {
      headers: { authorization: basic(credentials.user, credentials.password) },
    });
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('<title>visync</title>');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('listen addresses: HOST:PORT, [IPv6]:PORT or off; anything else is refused with what to write', () => {
    expect(parseListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListen('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseListen('0.0.0.0:0')).toEqual({ host: '0.0.0.0', port: 0 });
    expect(parseListen('off')).toBeUndefined();
    for (const bad of ['9464', 'localhost', '::1:9464', 'host:99999'])
      expect(() => parseListen(bad), bad).toThrow(/expected HOST:PORT such as 127\.0\.0\.1:9464, or off/);
  });

  it('a non-loopback address needs both VISYNC_UI_USER and VISYNC_UI_PASSWORD; loopback needs none', () => {
    const wildcard = { host: '0.0.0.0', port: 9464 };
    expect(() => endpointCredentials(wildcard, {})).toThrow(EndpointError);
    expect(() => endpointCredentials(wildcard, {})).toThrow(
      /0\.0\.0\.0:9464 is not a loopback address: set VISYNC_UI_USER and VISYNC_UI_PASSWORD/,
    );
    expect(() => endpointCredentials(wildcard, { VISYNC_UI_USER: 'ops' })).toThrow(/set both/);
    expect(endpointCredentials(wildcard, { VISYNC_UI_USER: 'ops', VISYNC_UI_PASSWORD: 'x' })).toEqual({
      user: 'ops',
      password: 'x',
    });
    expect(endpointCredentials({ host: '127.0.0.1', port: 9464 }, {})).toBeUndefined();
    expect(endpointCredentials({ host: '::1', port: 9464 }, {})).toBeUndefined();
  });

  it('a port already in use: refuses with one line naming the address and what to do', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => taken.close(r)));
    const port = (taken.address() as { port: number }).port;
    const attempt = startOpsServer({
      address: { host: '127.0.0.1', port },
      credentials: undefined,
      readOnly: true,
      logger: memoryLogger('warn').logger,
    });
    await expect(attempt).rejects.toThrow(EndpointError);
    await expect(attempt).rejects.toThrow(
      `worker endpoint cannot listen on 127.0.0.1:${port}: the address is in use (another worker here?); set worker.listen or --listen to a free HOST:PORT, or off`,
    );
  });

  it('the board is read-only by default (no retry, clean or pause) and writable with readOnly false', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const config: Config = jobsConfig(s, tempDir());
    const h = await worker(config);
    const readOnly = await ops();
    await readOnly.attach(h);
    const queue = encodeURIComponent(queueName('acme'));
    const list = (await (await fetch(`${readOnly.url}/ui/api/queues`)).json()) as {
      queues: { name: string; readOnlyMode: boolean }[];
    };
    // The shard queues, whatever the number of accounts (acme's is one of them), the load
    // batches' queue and the scheduled reports' queue.
    const shards = Array.from({ length: QUEUE_SHARDS }, (_, i) => [shardQueueName(i), true]);
    expect(list.queues.map((q) => [q.name, q.readOnlyMode]).sort()).toEqual(
      [...shards, [FINISH_QUEUE, true], [REPORT_QUEUE, true]].sort(),
    );
    for (const action of ['pause', 'clean/failed', 'retry/failed']) {
      const res = await fetch(`${readOnly.url}/ui/api/queues/${queue}/${action}`, { method: 'PUT' });
      expect(res.status, action).toBe(405);
    }
    expect(await h.context.queues.for('acme').isPaused()).toBe(false);

    const writable = await ops({ readOnly: false });
    await writable.attach(h);
    const pause = await fetch(`${writable.url}/ui/api/queues/${queue}/pause`, { method: 'PUT' });
    expect(pause.status).toBe(200);
    await until('the queue to be paused', () => h.context.queues.for('acme').isPaused());
  });
});

describe('visync worker --listen', () => {
  it('serves the endpoint it names in its ready line, and closes it on SIGTERM', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir, {
      top: { redis: { url: inject('redisUrl'), prefix: `t-${randomUUID().slice(0, 8)}` } },
    });
    const p = startVisync(['--config', writeConfig(dir, yaml), 'worker', '--listen', '127.0.0.1:0'], env);
    await waitForOutput(p, (out) => out.includes('visync worker ready'));
    const url = /endpoint (http:\/\/127\.0\.0\.1:\d+)\/ \(metrics, healthz, readyz, ui\)/.exec(
      p.stdout(),
    )?.[1];
    expect(url, p.stdout()).toBeDefined();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('visync_queue_jobs{state="delayed"} 1');
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('a second worker on one machine: the default port taken, it works on without an endpoint; a chosen taken port stops it', async () => {
    // Whoever holds the default port (this test, or anything else on the machine), it is taken.
    const holder = createServer();
    await new Promise<void>((r) => {
      holder.once('error', () => r());
      holder.listen(9464, '127.0.0.1', r);
    });
    closers.push(() => new Promise((r) => holder.close(() => r(undefined))));
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir, {
      top: { redis: { url: inject('redisUrl'), prefix: `t-${randomUUID().slice(0, 8)}` }, worker: {} },
    });
    const path = writeConfig(dir, yaml);
    const p = startVisync(['--config', path, 'worker', '--log-format', 'json'], env);
    await waitForOutput(p, (out) => out.includes('visync worker ready'));
    expect(p.stdout()).toContain('endpoint off');
    expect(p.stderr()).toContain('cannot listen on 127.0.0.1:9464: the address is in use');
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);

    const chosen = await runVisync(['--config', path, 'worker', '--listen', '127.0.0.1:9464'], env);
    expect(chosen.code).toBe(1);
    expect(chosen.stderr).toContain('visync: worker endpoint cannot listen on 127.0.0.1:9464');
  });

  it('a non-loopback address without credentials: one line, exit 78 (config), no worker started', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir, {
      top: { redis: { url: inject('redisUrl'), prefix: `t-${randomUUID().slice(0, 8)}` } },
    });
    const path = writeConfig(dir, yaml);
    const r = await runVisync(['--config', path, 'worker', '--listen', '0.0.0.0:0'], {
      ...env,
      VISYNC_UI_USER: '',
      VISYNC_UI_PASSWORD: '',
    });
    expect(r.code).toBe(78);
    expect(r.stdout).not.toContain('visync worker ready');
    expect(r.stderr.trim().split('\n')).toEqual([
      'visync: worker endpoint 0.0.0.0:0 is not a loopback address: set VISYNC_UI_USER and VISYNC_UI_PASSWORD (basic auth for /metrics, /readyz, /ui/ and /review/), or listen on 127.0.0.1',
    ]);
  });
});
