// Redis that is not there, or goes away: commands end with one line naming Redis and a non-zero
// exit; a worker waits for it with bounded backoff, says it is not ready, and takes jobs again
// once Redis is back.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { openJobsClient } from '../jobs/jobs-client.js';
import type { LedgerRun } from '../jobs/ledger.js';
import { parseConfig } from '../src/config/read-config.js';
import type { Config } from '../src/config/schema.js';
import { startWorker, type WorkerHandle } from '../src/run/queued/worker.js';
import { runVisync, startVisync, waitForOutput } from './helpers/cli-process.js';
import { configYaml, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { until } from './helpers/jobs.js';
import { freePort } from './helpers/net.js';
import { type PrivateRedis, startPrivateRedis } from './helpers/redis-server.js';
import { writeConfig } from './helpers/worker-process.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
  vi.restoreAllMocks();
});

const PASSWORD = 'pw-never-printed';
const STACK_LINE = /^\s+at /m;

async function configAt(redisUrl: string) {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
  const dir = tempDir();
  const { yaml, env } = configYaml(s, dir, {
    top: { redis: { url: redisUrl, prefix: `r-${randomUUID().slice(0, 8)}` }, jobs: { lockSeconds: 2 } },
  });
  const path = writeConfig(dir, yaml);
  return { path, env, config: parseConfig(yaml, { source: path, env }) };
}

/** Enqueues a sync of acme and waits for its run to succeed. */
async function syncSucceeds(config: Config): Promise<LedgerRun | undefined> {
  const client = openJobsClient(config, 'test');
  closers.push(() => client.close());
  const { runId } = await enqueueRun(client.queues, client.ledger, config, { kind: 'sync', account: 'acme' });
  await until(
    `run ${runId} succeeded`,
    async () => (await client.ledger.get(runId))?.status === 'succeeded',
    30_000,
  );
  return client.ledger.get(runId);
}

async function privateRedis(port?: number): Promise<PrivateRedis> {
  const r = await startPrivateRedis(port);
  closers.push(() => r.stop());
  return r;
}

describe('commands when Redis is unreachable', () => {
  it('status, enqueue and enqueue --wait print one line naming Redis and exit 1', async () => {
    const port = await freePort();
    const { path, env } = await configAt(`redis://:${PASSWORD}@127.0.0.1:${port}`);
    const runs = await Promise.all(
      [['status'], ['enqueue', 'sync'], ['enqueue', 'sync', '--wait']].map((args) =>
        runVisync(['--config', path, ...args], env),
      ),
    );
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr + r.stdout).not.toContain(PASSWORD);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^visync: Redis at 127\\.0\\.0\\.1:${port} is unreachable: .+ \\(.*redis\\.url.*\\)$`),
      );
    }
    // Three processes at once on a loaded machine: the guard of each process is what fails the test.
  }, 90_000);

  it('enqueue --wait ends with that line when Redis goes away while it waits', async () => {
    const redis = await privateRedis();
    const { path, env } = await configAt(redis.url);
    // No worker runs: the run stays queued and the command keeps waiting until Redis goes.
    const p = startVisync(['--config', path, 'enqueue', 'sync', '--wait'], env);
    await waitForOutput(p, (out) => out.includes('acme: enqueued sync'));
    await redis.stop();
    const r = await p.exited;
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(STACK_LINE);
    const port = new URL(redis.url).port;
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^visync: Redis at 127\\.0\\.0\\.1:${port} is unreachable: `),
    );
  });
});

describe('a worker when Redis is unreachable', () => {
  it('keeps retrying with one log line per attempt, never ready, and stops on SIGTERM', async () => {
    const port = await freePort();
    const { path, env } = await configAt(`redis://:${PASSWORD}@127.0.0.1:${port}`);
    const p = startVisync(['--config', path, 'worker', '--log-level', 'info'], env);
    const attempt = new RegExp(`Redis at 127\\.0\\.0\\.1:${port} is unreachable: .+; retrying in \\d+ s`);
    const attempts = (err: string) => err.split('\n').filter((l) => attempt.test(l));
    await waitForOutput(p, (_out, err) => attempts(err).length >= 2);
    p.child.kill('SIGTERM');
    const r = await p.exited;
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('visync worker ready');
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr).not.toContain(PASSWORD);
    // Every line is an attempt or one of the stopping lines: nothing from the other connections.
    const others = r.stderr
      .trimEnd()
      .split('\n')
      .filter((l) => !attempt.test(l));
    expect(
      others.every((l) => /"msg":"stop/.test(l)),
      others.join('\n'),
    ).toBe(true);
  });

  it('Redis stopped and started again on the same port: not ready, bounded log, then takes jobs', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const redis = await privateRedis();
    const port = Number(new URL(redis.url).port);
    const { config } = await configAt(redis.url);
    const { logger, lines } = memoryLogger('info');
    const handle: WorkerHandle = await startWorker({
      config,
      logger,
      concurrency: 2,
      redisBackoff: { firstMs: 100, maxMs: 400 },
    });
    closers.push(() => handle.close(2000));
    expect(handle.ready()).toEqual({ ok: true });

    await redis.stop();
    await until('the worker not ready', async () => !handle.ready().ok);
    expect(handle.ready().reason).toMatch(new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} is unreachable`));
    const retryLines = () => lines.filter((l) => l.includes('is unreachable'));
    await until('three retry lines', async () => retryLines().length >= 3);

    const again = await privateRedis(port);
    await until('the worker ready again', async () => handle.ready().ok);
    // One line per attempt of the one connection that reports; the others stay quiet.
    const attempts = retryLines().length;
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThan(40);
    expect(lines.join('')).not.toMatch(STACK_LINE);
    expect(consoleError).not.toHaveBeenCalled();

    expect((await syncSucceeds(config))?.workspaces_done).toBe(2);
    expect(again.url).toBe(redis.url);
  });

  it('a worker started before Redis waits for it, then starts and takes jobs', async () => {
    const port = await freePort();
    const { config } = await configAt(`redis://127.0.0.1:${port}`);
    const { logger, lines } = memoryLogger('info');
    const starting = startWorker({
      config,
      logger,
      concurrency: 2,
      redisBackoff: { firstMs: 100, maxMs: 400 },
    });
    await until(
      'two unreachable lines',
      async () => lines.filter((l) => l.includes(`Redis at 127.0.0.1:${port} is unreachable`)).length >= 2,
    );
    await privateRedis(port);
    const handle = await starting;
    closers.push(() => handle.close(2000));
    expect(handle.ready()).toEqual({ ok: true });
    expect(lines.join('')).not.toMatch(STACK_LINE);

    expect((await syncSucceeds(config))?.workspaces_done).toBe(2);
  });
});
