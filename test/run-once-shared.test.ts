// run --once next to other runs of the same account: latest/ only moves forward when two runs write
// it at once; with redis configured it draws from the account's budget in Redis (shared with the
// workers), and stops in one line when that Redis cannot be reached; --brand runs only the account
// that owns the workspace; a partial run says which workspace failed and why.

import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { peekBudget } from '../jobs/redis-rate-budget.js';
import { type LatestBundle, mergeLatest } from '../src/curate/latest.js';
import type { LandedRaw } from '../src/normalise/types.js';
import { finishRun } from '../src/run/finish-run.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { type KeyLock, MemoryKeyLock } from '../src/sinks/key-lock.js';
import { latestKey } from '../src/sinks/layout.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import {
  configFor,
  memoryLogger,
  readText,
  runOnceCli,
  sim,
  simWithForeignWorkspace,
  tempDir,
  visyncCli,
} from './helpers/harness.js';
import { freePort } from './helpers/net.js';

describe('latest/ under concurrent runs of one account', () => {
  it('an older run that read the bundle before a newer one wrote it does not undo the newer one', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const config = configFor(s, dir);
    const store = new FsObjectStore(dir);
    const logger = memoryLogger('silent').logger;
    const older = (await runInline({ config, store, logger })).manifests[0]!;
    const newer = (await runInline({ config, store, logger })).manifests[0]!;
    rmSync(join(dir, 'latest'), { recursive: true });

    // The older run reads the bundle first and is held until the newer run is writing it (or is
    // waiting for its turn to): the read-modify-write race, made certain.
    const events = new EventEmitter();
    const shared = new MemoryKeyLock();
    const lockOf = (who: string): KeyLock => ({
      runAll: (keys, fn) => {
        for (const key of keys) events.emit(`${who} wants`, key);
        return shared.runAll(keys, fn);
      },
    });
    const newerWrites = new Promise<void>((resolve) => {
      events.once('newer wants', () => resolve());
      events.once('newer put', () => resolve());
    });
    const spy = (who: string): ObjectStore => ({
      location: store.location,
      list: (p) => store.list(p),
      delete: (k) => store.delete(k),
      async get(key) {
        const value = await store.get(key);
        if (who === 'older' && key.startsWith('latest/')) {
          events.emit('older read');
          await newerWrites;
        }
        return value;
      },
      async put(key, body, options) {
        const stored = await store.put(key, body, options);
        if (key.startsWith('latest/')) events.emit(`${who} put`, key);
        return stored;
      },
    });
    const finish = (who: string, m: typeof older) =>
      finishRun({
        store: spy(who),
        run: { account: 'acme', runId: m.run_id, runDate: m.run_date },
        logger,
        latestLock: lockOf(who),
      });
    const olderRead = once(events, 'older read');
    const olderDone = finish('older', older);
    await olderRead;
    await Promise.all([olderDone, finish('newer', newer)]);

    const bundle = JSON.parse(
      readText(dir, latestKey('acme', s.accounts[0]!.workspaceIds[0]!)),
    ) as LatestBundle;
    expect(bundle.run_id).toBe(newer.run_id);
    expect(bundle.run_date).toBe(newer.run_date);
    expect(Object.values(bundle.sections).map((x) => x.run_id)).toEqual(
      Object.keys(bundle.sections).map(() => newer.run_id),
    );
  });

  it('a section moves forward by logical date first: a late backfill of an older date does not replace it', () => {
    const rec = (runId: string, date: string, at: string): LandedRaw => ({
      endpoint: 'visibility',
      account: 'acme',
      runId,
      snapshotDate: date,
      extractedAt: at,
      brandId: 'b',
      body: { run: runId },
    });
    const nightly = mergeLatest(undefined, 'acme', 'b', [rec('n', '2026-11-22', '2026-11-22T02:00:00Z')]);
    // A backfill for the 20th that happens to run later than the nightly of the 22nd.
    const after = mergeLatest(nightly, 'acme', 'b', [rec('old', '2026-11-20', '2026-11-22T09:00:00Z')]);
    expect(after.sections.visibility?.run_id).toBe('n');
    expect(after.run_id).toBe('n');
    // Same date: the fresher data wins.
    const later = mergeLatest(after, 'acme', 'b', [rec('n2', '2026-11-22', '2026-11-22T10:00:00Z')]);
    expect(later.sections.visibility?.run_id).toBe('n2');
  });
});

describe('run --once with redis configured', () => {
  it("takes its requests from the account's budget in Redis, so workers see them", async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const prefix = `ro-${randomUUID().slice(0, 8)}`;
    const r = await runOnceCli(s, dir, [], { top: { redis: { url: inject('redisUrl'), prefix } } });
    expect(r.code).toBe(0);
    const redis = new Redis(inject('redisUrl'));
    try {
      const state = await peekBudget(redis, prefix, 'acme', { requests: 120, windowMs: 60_000 });
      expect(state.inWindow).toBe(s.log.length);
      expect(state.inWindow).toBeGreaterThan(10);
    } finally {
      await redis.quit();
    }
  });

  it('records its runs in the run ledger, so `visync status` shows them and the failed reason', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const prefix = `ro-${randomUUID().slice(0, 8)}`;
    const top = { redis: { url: inject('redisUrl'), prefix } };
    const ok = await runOnceCli(s, dir, [], { top });
    expect(ok.code).toBe(0);
    const runId = /run (\S+) \|/.exec(ok.out[0] ?? '')?.[1];
    expect(runId).toBeTruthy();
    const bad = await runOnceCli(s, dir, [], {
      top,
      accounts: { acme: { brands: [...s.accounts[0]!.workspaceIds, 'brd_not_ours'] } },
    });
    expect(bad.code).toBe(2);

    const status = await visyncCli(join(dir, 'visync.yaml'), ['status', '--json']);
    expect(status.code).toBe(0);
    const acme = JSON.parse(status.out.join('\n')).accounts.find(
      (a: { account: string }) => a.account === 'acme',
    );
    expect(acme.last_success.run_id).toBe(runId);
    expect(acme.failed[0].status).toBe('partial');
    expect(acme.failed[0].reasons.join(' ')).toContain('brd_not_ours');
  });

  it('stops in one line naming Redis when it cannot be reached, before any API call', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const port = await freePort();
    const started = Date.now();
    const r = await runOnceCli(s, dir, [], { top: { redis: { url: `redis://127.0.0.1:${port}` } } });
    const tookMs = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(new RegExp(`^visync: Redis at 127\\.0\\.0\\.1:${port} is unreachable: `));
    expect(s.log).toHaveLength(0);
    // Measured, not asserted against the clock: the bound is the connection helper's.
    console.info(`run --once with Redis unreachable ended after ${tookMs} ms`);
  });
});

describe('run --once messages and --brand', () => {
  it('a partial run prints one line per failed workspace with its reason', async () => {
    const { s, own, foreign } = await simWithForeignWorkspace();
    const r = await runOnceCli(s, tempDir(), ['--account', 'acme'], {
      accounts: { acme: { brands: [own, foreign] } },
    });
    expect(r.code).toBe(2);
    expect(r.err).toEqual([
      expect.stringMatching(new RegExp(`^visync: acme: workspace ${foreign} failed: .*404`)),
    ]);
  });

  it('--brand alone runs only the account that owns it, found through one GET /brands per account', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 1 },
      ],
    });
    const target = s.accounts[1]!.workspaceIds[0]!;
    const r = await runOnceCli(s, tempDir(), ['--brand', target]);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    expect(r.out[0]).toMatch(/^beta: succeeded \| run \S+ \| 1\/1 workspaces/);
    const acme = s.log.filter((e) => e.account === 'acme');
    expect(acme.map((e) => e.endpoint)).toEqual(['brands']);
    expect(s.log.filter((e) => e.account === 'beta' && e.endpoint === 'brands')).toHaveLength(2);
  });

  it('--brand that no account owns, or that two accounts list, stops before any run', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 1 },
        { name: 'beta', workspaces: 1 },
      ],
    });
    const unknown = await runOnceCli(s, tempDir(), ['--brand', 'ws_nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.err.join('\n')).toMatch(/^visync: no configured account owns workspace ws_nobody/);
    expect(s.log.every((e) => e.endpoint === 'brands')).toBe(true);

    const shared = s.accounts[0]!.workspaceIds[0]!;
    const before = s.log.length;
    const both = await runOnceCli(s, tempDir(), ['--brand', shared], {
      accounts: { acme: { brands: [shared] }, beta: { brands: [shared] } },
    });
    expect(both.code).toBe(1);
    expect(both.err.join('\n')).toMatch(
      new RegExp(`^visync: workspace ${shared} belongs to several accounts \\(acme, beta\\): add --account`),
    );
    expect(s.log.length).toBe(before);
  });
});
