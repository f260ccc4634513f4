// Upstream faults that must end in a bounded, clear failure of `run --once` over real HTTP: a
// Retry-After longer than the run has left, a huge body, a trickling body, and the upstream's own
// error text carried into the manifest.
import { describe, expect, it } from 'vitest';
import { runInline } from '../src/run/inline/run-inline.js';
import type { FaultRule } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import {
  configFor,
  FAST_RETRY,
  listFiles,
  memoryLogger,
  sim,
  simWithForeignWorkspace,
  tempDir,
} from './helpers/harness.js';

/**
 * A run of two workspaces where every call of the first meets `fault`, with two fast attempts per
 * call: the run is partial, the other workspace succeeded; returns the faulty one's error.
 */
async function oneWorkspaceFaulty(
  fault: Omit<FaultRule, 'brandId' | 'times'>,
  extract: Record<string, unknown>,
) {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
  const [a, b] = s.accounts[0]!.workspaceIds as [string, string];
  s.addFault({ ...fault, brandId: a, times: Number.POSITIVE_INFINITY });
  const dir = tempDir();
  const { manifests } = await runInline({
    config: configFor(s, dir, { extract }),
    store: new FsObjectStore(dir),
    logger: memoryLogger().logger,
    retry: { ...FAST_RETRY, attempts: 2 },
  });
  const m = manifests[0]!;
  expect(m.status).toBe('partial');
  const byId = Object.fromEntries(m.workspaces.map((w) => [w.brand_id, w]));
  expect(byId[b]?.status).toBe('succeeded');
  return { s, dir, a, error: byId[a]?.error };
}

describe('run --once under upstream faults', () => {
  it('a Retry-After beyond the run deadline pauses the whole account: one 429, only calls already in flight answered after it, rate_limited failures naming the deadline', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 4 }] });
    // An hour, far beyond the 15 min the client used to accept as a pause; the run has 36 s left.
    s.addFault({ account: 'acme', endpoint: 'visibility', kind: 'status', status: 429, retryAfter: 3600 });
    const dir = tempDir();
    const concurrency = 4;
    const { manifests } = await runInline({
      config: configFor(s, dir, { extract: { concurrency }, top: { jobs: { maxRunHours: 0.01 } } }),
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    const m = manifests[0]!;
    const limited = s.log.filter((e) => e.status === 429);
    expect(limited).toHaveLength(1);
    expect(m.requests.rate_limited).toBe(1);
    // Only requests already in flight when the 429 came back (one per other lane) may follow it.
    const later = s.log.filter((e) => e.account === 'acme' && e.seq > limited[0]!.seq);
    expect(later.length).toBeLessThanOrEqual(concurrency - 1);
    expect(later.every((e) => e.status === 200)).toBe(true);
    expect(m.workspaces.every((w) => w.status === 'failed')).toBe(true);
    for (const w of m.workspaces) {
      expect(w.error).toMatch(/429|rate limited|paused/);
      expect(w.error).toMatch(/run deadline of 0\.01 h/);
    }
  });

  it('a body larger than extract.maxResponseBytes is cut off and fails the call, naming the limit and the key', async () => {
    const huge = 32 * 1024 * 1024;
    const { s, dir, a, error } = await oneWorkspaceFaulty(
      { endpoint: 'prompts', kind: 'huge-body', bytes: huge },
      { maxResponseBytes: 65_536 },
    );
    expect(error).toMatch(/larger than 65536 bytes \(extract\.maxResponseBytes\)/);
    expect(error).toMatch(/after 2 attempts/);
    const served = s.log.filter((e) => e.fault === 'huge-body');
    expect(served).toHaveLength(2);
    // The client stopped reading: the simulator could not push the whole body.
    for (const e of served) expect(e.bytes).toBeLessThan(huge);
    expect(
      listFiles(dir).some((f) => f.startsWith('raw/prompts/') && f.includes(encodeURIComponent(a))),
    ).toBe(false);
  });

  it('a body trickling past extract.requestTimeoutSeconds fails the call instead of hanging', async () => {
    // One byte every 100 ms: each chunk arrives well within the idle timeout, the whole never ends.
    const { s, error } = await oneWorkspaceFaulty(
      { endpoint: 'reputation', kind: 'slow-body', chunkBytes: 1, delayMs: 100 },
      { requestTimeoutSeconds: 0.5 },
    );
    expect(error).toMatch(
      /no complete response within 0\.5 s \(extract\.requestTimeoutSeconds\).* after 2 attempts|after 2 attempts.*no complete response within 0\.5 s \(extract\.requestTimeoutSeconds\)/,
    );
    expect(s.log.filter((e) => e.fault === 'slow-body')).toHaveLength(2);
  }, 20_000);

  it("the upstream's error body reaches the manifest: a foreign workspace's 404 and its message", async () => {
    const { s, own, foreign } = await simWithForeignWorkspace();
    const dir = tempDir();
    const { manifests } = await runInline({
      config: configFor(s, dir, { accounts: { acme: { brands: [own, foreign] } } }),
      accounts: ['acme'],
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    const m = manifests[0]!;
    expect(m.status).toBe('partial');
    const failed = m.workspaces.find((w) => w.brand_id === foreign)!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/-> 404/);
    expect(failed.error).toContain('"code":"not_found"');
    expect(failed.error).toContain('workspace not found');
  });
});
