// Workspace ids that look like parts of a file name (`.days-7`, `.tmp-1`, `_account`) or that
// encode to more than a file name can hold must land, curate and replay under their own id.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../src/api/client.js';
import { RAW_ENDPOINTS, type WorkspaceEndpoint, workspaceCall } from '../src/api/endpoints.js';
import { TABLES } from '../src/catalogue/index.js';
import { listRawRun } from '../src/curate/raw-run.js';
import { brandIdOfRequest, landRaw, type RawRequestInfo } from '../src/land/raw.js';
import { RUN_ID_PATTERN } from '../src/records/run-id.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { replayRun } from '../src/run/replay.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import {
  brandKey,
  latestKey,
  manifestKey,
  parseLatestKey,
  parseManifestKey,
  parseRawKey,
  parseTablePartKey,
  type RawKeyParts,
  rawKey,
  tablePartKey,
} from '../src/sinks/layout.js';
import { assertSafeKey } from '../src/sinks/object-store.js';
import { configFor, listFiles, memoryLogger, readBytes, readText, sim, tempDir } from './helpers/harness.js';

const CJK_80 = '数据仓库'.repeat(20);
const ALIASING_IDS = ['foo.days-7', 'x.tmp-1', '_account', CJK_80, 'plain'];

/** Tables that hold at least one row per workspace and run. */
const PER_WORKSPACE_TABLES = TABLES.map((t) => t.name).filter(
  (name) => !['accounts', 'reputation_claims', 'reputation_conflicts'].includes(name),
);

function rowsByTable(dir: string): Map<string, Record<string, unknown>[]> {
  const out = new Map<string, Record<string, unknown>[]>();
  for (const key of listFiles(dir).filter((f) => f.startsWith('tables/'))) {
    const table = key.split('/')[1] as string;
    const rows = gunzipSync(readBytes(dir, key))
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    out.set(table, [...(out.get(table) ?? []), ...rows]);
  }
  return out;
}

describe('workspace ids that alias file names', () => {
  it('land, curate and replay under their own brand_id, with a latest file each', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: ALIASING_IDS }], seed: 3 });
    const dir = tempDir();
    const store = new FsObjectStore(dir);
    const { manifests, status } = await runInline({
      config: configFor(s, dir),
      store,
      logger: memoryLogger('warn').logger,
    });
    const m = manifests[0]!;
    expect(m.workspaces.filter((w) => w.status !== 'succeeded')).toEqual([]);
    expect(status).toBe('succeeded');
    expect(m.workspaces.map((w) => w.brand_id).sort()).toEqual([...ALIASING_IDS].sort());

    // Every file name fits ext4's 255-byte limit (the landing would have failed otherwise).
    for (const key of listFiles(dir)) {
      for (const segment of key.split('/')) expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(255);
    }

    const tables = rowsByTable(dir);
    for (const table of PER_WORKSPACE_TABLES) {
      const ids = new Set((tables.get(table) ?? []).map((r) => r.brand_id));
      expect([...ids].sort(), table).toEqual([...ALIASING_IDS].sort());
    }
    for (const id of ALIASING_IDS) {
      const windows = (tables.get('buyer_intent') ?? [])
        .filter((r) => r.brand_id === id)
        .map((r) => r.window_days)
        .sort();
      expect(windows, id).toEqual([30, 7].sort());

      const latest = JSON.parse(readText(dir, latestKey('acme', id))) as {
        brand_id: string;
        sections: Record<string, unknown>;
      };
      expect(latest.brand_id).toBe(id);
      expect(Object.keys(latest.sections)).toEqual([
        'brand',
        'buyer-intent.days-30',
        'buyer-intent.days-7',
        'prompts',
        'recommendations',
        'reputation',
        'visibility',
      ]);
    }

    // A run that crashed before its manifest is replayed from its raw files alone: the same ids.
    rmSync(join(dir, ...manifestKey('acme', m.run_id).split('/')));
    const replayed = await replayRun({ store, runId: m.run_id, logger: memoryLogger('warn').logger });
    expect(replayed.workspaces.map((w) => w.brand_id).sort()).toEqual([...ALIASING_IDS].sort());
    const again = rowsByTable(dir);
    for (const table of PER_WORKSPACE_TABLES) {
      expect(again.get(table)?.length, table).toBe(tables.get(table)?.length);
    }
  });
});

// ---- property-based: keys built from arbitrary ids parse back to what built them ----

const TRICKY = [
  '.',
  '..',
  '%',
  '%2F',
  '/',
  '.days-7',
  '.tmp-1',
  '.json',
  '_account',
  '~h-',
  '@tmp-1',
  ' ',
  '\u0000',
];
const cjk = fc.integer({ min: 0x4e00, max: 0x9fff }).map((c) => String.fromCodePoint(c));
/** Workspace ids: any unicode, pieces of file names glued together, and ids too long for a file name. */
const workspaceId = fc
  .oneof(
    fc.string({ unit: 'binary', minLength: 1 }),
    fc.string({
      unit: fc.oneof(fc.constantFrom(...TRICKY), fc.string({ unit: 'grapheme', maxLength: 3 })),
      minLength: 1,
    }),
    fc.string({ unit: cjk, minLength: 15, maxLength: 120 }),
    fc.string({ unit: 'binary', minLength: 150, maxLength: 400 }),
    fc.string({ unit: 'binary-ascii', minLength: 190, maxLength: 210 }),
    // Long ids that encode to themselves, so a hashed key is a valid id too.
    fc.string({ unit: fc.constantFrom(..."az09-_.!~*'()"), minLength: 195, maxLength: 260 }),
    // An id that is itself shaped like a hashed key (short, so it must stay plain).
    fc
      .tuple(fc.string({ unit: 'grapheme-ascii', minLength: 1 }), fc.stringMatching(/^[0-9a-f]{32}$/))
      .map(([a, h]) => `${a}~h-${h}`),
  )
  .filter((id) => id !== '');
const account = fc.stringMatching(/^[a-z0-9-]{1,20}$/);
const runId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$/).filter((r) => RUN_ID_PATTERN.test(r));
const runDate = fc
  .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const days = fc.integer({ min: 7, max: 90 });

/** A raw key's parts exactly as the landing builds them. */
const rawParts = fc
  .record({ endpoint: fc.constantFrom(...RAW_ENDPOINTS), account, runDate, runId, id: workspaceId, days })
  .map(({ endpoint, id, days: d, ...rest }): RawKeyParts => {
    const p: RawKeyParts = { endpoint, ...rest };
    if (endpoint !== 'me' && endpoint !== 'brands') p.brandId = id;
    if (endpoint === 'buyer-intent') p.days = d;
    return p;
  });

function segmentsAreFileNames(key: string): void {
  for (const segment of key.split('/')) {
    expect(segment).not.toBe('');
    expect(segment).not.toBe('.');
    expect(segment).not.toBe('..');
    expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(255);
  }
}

/** The request a raw file records for a workspace call, as the client sends it (base path prefix included). */
function requestOf(endpoint: WorkspaceEndpoint, id: string, d: number, basePath: string): RawRequestInfo {
  const call = workspaceCall(
    endpoint,
    id,
    endpoint === 'buyer-intent' || endpoint === 'visibility' ? d : undefined,
  );
  return {
    method: 'GET',
    path: basePath + call.path,
    query: call.query,
    status: 200,
    received_at: '2026-11-21T00:00:00Z',
  };
}

describe('storage keys (property-based)', () => {
  it('rawKey -> parseRawKey gives back endpoint, account, date, run, workspace and window', () => {
    fc.assert(
      fc.property(rawParts, fc.constantFrom('', '/api/v1', '/brands'), (p, basePath) => {
        const key = rawKey(p);
        expect(key.split('/')).toHaveLength(6);
        segmentsAreFileNames(key);
        const parsed = parseRawKey(key);
        expect(parsed).toBeDefined();
        const { brand, ...rest } = parsed!;
        const { brandId, ...expected } = p;
        expect(rest).toEqual(expected);
        if (brandId === undefined) {
          expect(brand).toBeUndefined();
          return;
        }
        expect(brand?.key).toBe(brandKey(brandId));
        // A plain key decodes to the id; a hashed one maps back through the file's request path.
        const recovered =
          brand?.brandId ??
          brandIdOfRequest(
            p.endpoint,
            requestOf(p.endpoint as WorkspaceEndpoint, brandId, p.days ?? 7, basePath),
          );
        expect(recovered).toBe(brandId);
        expect(brand?.brandId === undefined).toBe(Buffer.byteLength(encodeURIComponent(brandId)) > 200);
      }),
      { numRuns: 400 },
    );
  });

  it('brandKey is injective, even against ids shaped like another id key', () => {
    fc.assert(
      fc.property(fc.uniqueArray(workspaceId, { minLength: 2, maxLength: 30 }), (ids) => {
        const withKeysAsIds = [...new Set([...ids, ...ids.map(brandKey)])];
        expect(new Set(withKeysAsIds.map(brandKey)).size).toBe(withKeysAsIds.length);
      }),
      { numRuns: 300 },
    );
  });

  it('latest, manifest and table keys parse back; no segment is empty, `.`, `..` or over 255 bytes', () => {
    fc.assert(
      fc.property(account, workspaceId, runId, runDate, fc.nat({ max: 200_000 }), (a, id, r, d, part) => {
        const latest = latestKey(a, id);
        expect(latest.split('/')).toHaveLength(3);
        segmentsAreFileNames(latest);
        const l = parseLatestKey(latest);
        expect(l?.account).toBe(a);
        expect(l?.brand.key).toBe(brandKey(id));
        if (l?.brand.brandId !== undefined) expect(l.brand.brandId).toBe(id);

        expect(parseManifestKey(manifestKey(a, r))).toEqual({ account: a, runId: r });
        const t = { table: 'buyer_intent', partitionDate: d, account: a, runId: r, part };
        expect(parseTablePartKey(tablePartKey(t))).toEqual(t);
      }),
      { numRuns: 400 },
    );
  });

  it('a parser accepts only what its builder emits (or emitted before hashing): a parsed name builds back', () => {
    const fileName = fc.oneof(
      fc.string({
        unit: fc.oneof(
          fc.constantFrom(...TRICKY, '.json', '.days-', '7', '%41', '%e9'),
          fc.string({ unit: 'grapheme-ascii', maxLength: 2 }),
        ),
      }),
      workspaceId.map((id) => `${brandKey(id)}.days-7.json`),
      // Plain names longer than today's bound, as landed on S3 before long ids were hashed.
      workspaceId.map((id) => `${encodeURIComponent(id)}.json`),
    );
    fc.assert(
      fc.property(fc.constantFrom(...RAW_ENDPOINTS), fileName, (endpoint, file) => {
        const key = `raw/${endpoint}/account=acme/dt=2026-11-21/run=r1/${file}`;
        const parsed = parseRawKey(key);
        if (!parsed || (parsed.brand?.key !== undefined && parsed.brand.brandId === undefined)) return;
        const { brand, ...rest } = parsed;
        const rebuilt: RawKeyParts = { ...rest };
        if (brand?.brandId !== undefined) rebuilt.brandId = brand.brandId;
        if (brand && brand.key.length > 200)
          expect(encodeURIComponent(brand.brandId as string)).toBe(brand.key);
        else expect(rawKey(rebuilt)).toBe(key);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads the window only on buyer-intent, from the right', () => {
    const base = 'account=acme/dt=2026-11-21/run=r1';
    expect(parseRawKey(`raw/brand/${base}/foo.days-7.json`)).toMatchObject({
      brand: { brandId: 'foo.days-7' },
    });
    expect(parseRawKey(`raw/brand/${base}/foo.days-7.json`)?.days).toBeUndefined();
    expect(parseRawKey(`raw/buyer-intent/${base}/foo.days-7.days-30.json`)).toMatchObject({
      days: 30,
      brand: { brandId: 'foo.days-7' },
    });
    // A workspace called `_account` is a workspace wherever a workspace is expected.
    expect(parseRawKey(`raw/visibility/${base}/_account.json`)).toMatchObject({
      brand: { brandId: '_account' },
    });
    expect(parseRawKey(`raw/me/${base}/_account.json`)?.brand).toBeUndefined();
    // Lower-case hex is not what the landing writes: a stray file, not a raw file.
    expect(parseRawKey(`raw/brand/${base}/a%2fb.json`)).toBeUndefined();
  });

  it('landed files of arbitrary workspaces are listed back under their ids by the fs store', async () => {
    const dir = tempDir();
    const store = new FsObjectStore(dir);
    const run = { account: 'acme', runId: 'r1', runDate: '2026-11-21' };
    // A crashed write leaves a temporary file behind; it is never taken for a key.
    mkdirSync(join(dir, 'raw', 'brand', 'account=acme', 'dt=2026-11-21', 'run=r1'), { recursive: true });
    writeFileSync(join(dir, 'raw', 'brand', 'account=acme', 'dt=2026-11-21', 'run=r1', '@tmp-1-00ff'), '{');
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(workspaceId, { minLength: 1, maxLength: 6 }), async (ids) => {
        for (const id of ids) {
          for (const endpoint of ['brand', 'buyer-intent'] as const) {
            const call = workspaceCall(endpoint, id, endpoint === 'buyer-intent' ? 30 : undefined);
            const res = {
              call,
              status: 200,
              path: `/api${call.path}`,
              query: call.query,
              receivedAt: 'now',
              bodyText: '{}',
            };
            await landRaw(store, run, res as unknown as ApiResponse);
          }
        }
        const listed = await listRawRun(store, run);
        for (const id of ids) {
          expect(listed.workspaces.get(id)?.map((r) => [r.endpoint, r.days])).toEqual([
            ['brand', undefined],
            ['buyer-intent', 30],
          ]);
        }
      }),
      { numRuns: 25 },
    );
    await expect(store.put('raw/x/@tmp-1', '{}', { contentType: 'application/json' })).rejects.toThrow(
      /temporary/,
    );
  });

  it('still reads raw files landed under long plain names before long ids were hashed', async () => {
    const store = new FsObjectStore(tempDir());
    const run = { account: 'acme', runId: 'r1', runDate: '2026-11-21' };
    // 230 and 235 bytes: too long for today's plain keys, short enough for ext4 (S3 took up to 1024).
    const ids = ['a'.repeat(230), `${'b'.repeat(200)}~h-${'0'.repeat(32)}`];
    for (const id of ids) {
      const call = workspaceCall('prompts', id);
      const request = { method: 'GET', path: call.path, query: {}, status: 200, received_at: 'then' };
      const key = `raw/prompts/account=acme/dt=2026-11-21/run=r1/${encodeURIComponent(id)}.json`;
      await store.put(key, JSON.stringify({ request, body: {} }), { contentType: 'application/json' });
    }
    const listed = await listRawRun(store, run);
    expect([...listed.workspaces.keys()]).toEqual([...ids].sort());
  });
});

describe('object keys a store refuses', () => {
  it('exactly those with an empty, `.` or `..` segment (or a leading slash, a backslash, a NUL)', () => {
    const segment = fc.oneof(
      fc.constantFrom('', '.', '..', '...', '.a', 'a.', '..a', 'dt=2026-11-25', '%2E%2E'),
      fc.string({ unit: fc.constantFrom('a', '.', '-', '%'), maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        const key = segments.join('/');
        const unsafe = segments.some((x) => x === '' || x === '.' || x === '..');
        if (unsafe) expect(() => assertSafeKey(key), key).toThrow(/unsafe object key/);
        else expect(() => assertSafeKey(key), key).not.toThrow();
      }),
    );
  });
});
