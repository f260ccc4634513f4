// `run --once` end to end over real HTTP against the simulator: what lands, what the manifest
// says, and how the client behaves under limits, pauses and failures.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKSPACE_ENDPOINTS } from '../src/api/endpoints.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { peakInWindow } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { manifestKey } from '../src/sinks/layout.js';
import {
  configFor,
  FAST_RETRY,
  listFiles,
  memoryLogger,
  readBytes,
  readText,
  sim,
  tempDir,
} from './helpers/harness.js';

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** The body part of a raw file, as bytes: the file is `{"request":...,"body":<body>}`. */
function rawBody(text: string): string {
  const doc = JSON.parse(text) as { request: unknown };
  const prefix = `{"request":${JSON.stringify(doc.request)},"body":`;
  expect(text.startsWith(prefix)).toBe(true);
  expect(text.endsWith('}')).toBe(true);
  return text.slice(prefix.length, -1);
}

/** The raw landing files a manifest lists (it also lists curated parts and latest bundles). */
const rawFiles = (m: { files: { key: string }[] }) => m.files.filter((f) => f.key.startsWith('raw/'));

describe('run --once', () => {
  it('lands every endpoint of every workspace, byte for byte, and writes the manifest last', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 4 }], seed: 7 });
    const dir = tempDir();
    const config = configFor(s, dir);
    const { manifests, status } = await runInline({
      config,
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    expect(status).toBe('succeeded');
    const m = manifests[0]!;
    const ids = s.accounts[0]!.workspaceIds;
    expect(m.workspaces.map((w) => w.brand_id).sort()).toEqual([...ids].sort());

    const files = listFiles(dir);
    const raw = files.filter((f) => f.startsWith('raw/'));
    // /me, /brands, and per workspace: 5 endpoints + one buyer-intent file per window.
    expect(raw).toHaveLength(2 + ids.length * (WORKSPACE_ENDPOINTS.length - 1 + 2));
    for (const id of ids) {
      for (const ep of WORKSPACE_ENDPOINTS) {
        const names = ep === 'buyer-intent' ? [`${id}.days-7.json`, `${id}.days-30.json`] : [`${id}.json`];
        for (const n of names)
          expect(raw).toContain(`raw/${ep}/account=acme/dt=${m.run_date}/run=${m.run_id}/${n}`);
      }
    }

    // Each landed body is exactly the bytes the simulator sent for that request.
    const sent = new Map(
      s.log.filter((e) => e.status === 200).map((e) => [`${e.path}?${new URLSearchParams(e.query)}`, e]),
    );
    for (const key of raw) {
      const text = readText(dir, key);
      const { request } = JSON.parse(text) as {
        request: { path: string; query: Record<string, string>; status: number };
      };
      const entry = sent.get(`${request.path}?${new URLSearchParams(request.query)}`);
      expect(entry, key).toBeDefined();
      expect(sha(rawBody(text))).toBe(entry!.bodySha256);
      expect(request.status).toBe(200);
    }

    // The manifest lists every file with the hash of its stored bytes.
    const manifest = JSON.parse(readText(dir, manifestKey('acme', m.run_id)));
    expect(manifest.status).toBe('succeeded');
    expect(rawFiles(manifest)).toHaveLength(raw.length);
    for (const f of manifest.files) expect(sha(readBytes(dir, f.key))).toBe(f.sha256);
    expect(manifest.requests.calls).toBe(raw.length);
    expect(manifest.window).toMatchObject({ visibility_days: 3, buyer_intent_days: [7, 30] });
  });

  it('under concurrency never exceeds the limit in any rolling window, as the server counts', async () => {
    const windowMs = 400;
    const s = await sim({
      accounts: [{ name: 'acme', workspaces: 8 }],
      limit: { requests: 10, windowMs },
      latencyMs: { min: 0, max: 15 },
    });
    const dir = tempDir();
    const config = configFor(s, dir, {
      accounts: { acme: { requestsPerMinute: 10, rateWindowSeconds: windowMs / 1000 } },
      extract: { concurrency: 8 },
    });
    const { manifests } = await runInline({
      config,
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    expect(manifests[0]!.status).toBe('succeeded');
    expect(s.log.filter((e) => e.status === 429)).toHaveLength(0);
    expect(peakInWindow(s.log, 'acme', windowMs)).toBeLessThanOrEqual(10);
    expect(s.log.length).toBeGreaterThan(50);
  });

  /** Runs with one 429 (Retry-After as given) on one workspace's visibility call. */
  async function runWith429(form: 'seconds' | 'http-date', concurrency: number) {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 4 }] });
    const target = s.accounts[0]!.workspaceIds[1]!;
    // A pause of 1 s shows it as well as a longer one. An HTTP date has whole seconds and is set
    // before the run starts: 2 to 3 s from now, so that the pause is still ahead when the 429 comes.
    const header =
      form === 'seconds' ? 1 : new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000).toUTCString();
    s.addFault({
      account: 'acme',
      endpoint: 'visibility',
      brandId: target,
      kind: 'status',
      status: 429,
      retryAfter: header,
    });
    const dir = tempDir();
    const config = configFor(s, dir, { extract: { concurrency } });
    const { manifests } = await runInline({
      config,
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    const limited = s.log.find((e) => e.status === 429)!;
    const pauseEnds = typeof header === 'number' ? limited.at + header * 1000 : Date.parse(header);
    const later = s.log.filter((e) => e.seq > limited.seq && e.account === 'acme');
    return { s, dir, target, m: manifests[0]!, limited, pauseEnds, later };
  }

  for (const form of ['seconds', 'http-date'] as const) {
    it(`honours Retry-After given as ${form}: nothing leaves before the pause ends, then the call is repeated`, async () => {
      const { dir, target, m, pauseEnds, later } = await runWith429(form, 1);
      expect(m.status).toBe('succeeded');
      expect(m.requests.rate_limited).toBe(1);
      expect(later.length).toBeGreaterThan(0);
      // 2 ms of slack for the two clocks (Date.now in the client, performance time in the server).
      for (const e of later) expect(e.at).toBeGreaterThanOrEqual(pauseEnds - 2);
      const retried = later.find((e) => e.endpoint === 'visibility' && e.brandId === target);
      expect(retried?.status).toBe(200);
      expect(listFiles(dir)).toContain(
        `raw/visibility/account=acme/dt=${m.run_date}/run=${m.run_id}/${target}.json`,
      );
    });
  }

  it('a Retry-After pauses every lane of the account, not just the call that got it', async () => {
    const concurrency = 4;
    const { m, target, pauseEnds, later } = await runWith429('seconds', concurrency);
    expect(m.status).toBe('succeeded');
    // Only requests already in flight when the 429 came back (one per other lane) may arrive
    // during the pause; every lane's next request waits for its end.
    const during = later.filter((e) => e.at < pauseEnds - 2);
    expect(during.length).toBeLessThanOrEqual(concurrency - 1);
    expect(new Set(during.map((e) => e.brandId)).size).toBe(during.length);
    expect(during.some((e) => e.brandId === target)).toBe(false);
    expect(later.length - during.length).toBeGreaterThan(10);
  });

  it('retries 5xx and resets, then succeeds', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const [a, b] = s.accounts[0]!.workspaceIds;
    s.addFault({ endpoint: 'prompts', brandId: a, kind: 'status', status: 502, times: 2 });
    s.addFault({ endpoint: 'reputation', brandId: b, kind: 'status', status: 503, retryAfter: 1 });
    s.addFault({ endpoint: 'brand', brandId: b, kind: 'reset' });
    s.addFault({ endpoint: 'recommendations', brandId: a, kind: 'malformed-json' });
    const dir = tempDir();
    const { manifests } = await runInline({
      config: configFor(s, dir),
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
      retry: FAST_RETRY,
    });
    const m = manifests[0]!;
    expect(m.status).toBe('succeeded');
    expect(m.requests.retries).toBe(5);
    expect(rawFiles(m)).toHaveLength(2 + 2 * 7);
  });

  it('a 5xx storm ends in a clear failure and keeps what landed before it', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    s.addFault({ kind: 'status', status: 500, after: 6, times: Number.POSITIVE_INFINITY });
    const dir = tempDir();
    const { manifests, status } = await runInline({
      config: configFor(s, dir, { extract: { concurrency: 1 } }),
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
      retry: { ...FAST_RETRY, attempts: 3 },
    });
    expect(status).toBe('failed');
    const m = manifests[0]!;
    expect(m.workspaces.every((w) => w.status === 'failed')).toBe(true);
    expect(m.workspaces[1]!.error).toMatch(/-> 500 after 3 attempts: the API kept failing/);
    // The six answered requests landed and stay intact, listed in the manifest.
    expect(rawFiles(m)).toHaveLength(6);
    for (const f of m.files) expect(sha(readBytes(dir, f.key))).toBe(f.sha256);
    expect(listFiles(dir)).toContain(manifestKey('acme', m.run_id));
  });

  it('a revoked key stops the account at once with one clear error', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 5 }] });
    s.revokeKey(s.accounts[0]!.keys[0]!);
    const dir = tempDir();
    const { manifests, status } = await runInline({
      config: configFor(s, dir),
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    expect(status).toBe('failed');
    expect(manifests[0]!.error).toMatch(/GET \/api\/v1\/me -> 401: the API key was refused/);
    expect(s.log.length).toBeLessThanOrEqual(2);
  });

  it('a plan without API access stops the account at once with one clear error', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 5, plan: 'starter' }] });
    const dir = tempDir();
    const { manifests } = await runInline({
      config: configFor(s, dir),
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    expect(manifests[0]!.status).toBe('failed');
    expect(manifests[0]!.error).toMatch(/-> 403: .*Concierge and Agency plans/);
    expect(s.log.length).toBeLessThanOrEqual(2);
  });

  it('a key revoked mid-run stops the account without a retry storm', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 10 }] });
    s.addFault({ kind: 'status', status: 401, after: 12, times: Number.POSITIVE_INFINITY });
    const dir = tempDir();
    const concurrency = 4;
    const { manifests } = await runInline({
      config: configFor(s, dir, { extract: { concurrency } }),
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
      retry: FAST_RETRY,
    });
    const m = manifests[0]!;
    expect(m.status).toBe('failed');
    expect(m.error).toMatch(/401/);
    // Only the requests already in flight when the first 401 came back may follow it.
    expect(s.log.filter((e) => e.status === 401).length).toBeLessThanOrEqual(concurrency);
    expect(rawFiles(m)).toHaveLength(12);
  });

  it('records a foreign workspace of an explicit list and completes the others', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'other', workspaces: 1 },
      ],
    });
    const [own1, own2] = s.accounts[0]!.workspaceIds;
    const foreign = s.accounts[1]!.workspaceIds[0]!;
    const dir = tempDir();
    const config = configFor(s, dir, { accounts: { acme: { brands: [own1, foreign, own2] } } });
    const { manifests } = await runInline({
      config,
      accounts: ['acme'],
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    const m = manifests[0]!;
    expect(m.status).toBe('partial');
    const byId = Object.fromEntries(m.workspaces.map((w) => [w.brand_id, w]));
    expect(byId[own1!]?.status).toBe('succeeded');
    expect(byId[own2!]?.status).toBe('succeeded');
    expect(byId[foreign]?.status).toBe('failed');
    expect(byId[foreign]?.error).toMatch(/404: this workspace is not owned by the account/);
    // One refused call, not one per endpoint.
    expect(s.log.filter((e) => e.brandId === foreign)).toHaveLength(1);
  });

  it('lands workspace ids with "/", ".." and spaces inside their folder, percent-encoded', async () => {
    const ids = ['a/b', '..', 'with space', '../escape'];
    const s = await sim({ accounts: [{ name: 'acme', workspaces: ids }] });
    const dir = tempDir();
    const { manifests } = await runInline({
      config: configFor(s, dir),
      store: new FsObjectStore(dir),
      logger: memoryLogger().logger,
    });
    const m = manifests[0]!;
    expect(m.status).toBe('succeeded');
    const folder = `raw/prompts/account=acme/dt=${m.run_date}/run=${m.run_id}/`;
    const files = listFiles(dir).filter((f) => f.startsWith(folder));
    expect(files.map((f) => f.slice(folder.length)).sort()).toEqual(
      ['%2E%2E.json', '..%2Fescape.json', 'a%2Fb.json', 'with%20space.json'].sort(),
    );
    const brandDoc = JSON.parse(
      readText(dir, `raw/brand/account=acme/dt=${m.run_date}/run=${m.run_id}/a%2Fb.json`),
    );
    expect(brandDoc.request.path).toBe('/api/v1/brands/a%2Fb');
    expect(brandDoc.body.id).toBe('a/b');
  });

  it('never writes the API key to the output folder or the logs, also when things fail', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 3 },
        { name: 'gone', workspaces: 1 },
      ],
    });
    s.addFault({ account: 'acme', endpoint: 'prompts', kind: 'status', status: 500, times: 3 });
    s.addFault({ account: 'acme', endpoint: 'reputation', kind: 'status', status: 429, retryAfter: 1 });
    s.revokeKey(s.accounts[1]!.keys[0]!);
    const dir = tempDir();
    const { logger, lines } = memoryLogger('debug');
    await runInline({ config: configFor(s, dir), store: new FsObjectStore(dir), logger, retry: FAST_RETRY });
    const keys = s.accounts.flatMap((a) => a.keys);
    const everything = [
      lines.join(''),
      ...listFiles(dir).map((f) => readFileSync(join(dir, f), 'utf8')),
    ].join('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const key of keys) expect(everything).not.toContain(key);
  });
});
