// How `visync export duckdb|dbt` learns which tables have part files (src/export/tables-with-files.ts):
// one bounded question per table to the real store (an fs folder, an S3 server), never a listing of
// every part file, and still only the table's own part keys count (`reputation`'s folder is a
// prefix of `reputation_claims`'s name, a stray file is no part).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { tableFolder } from '../src/export/column-types.js';
import { tablesWithFiles } from '../src/export/tables-with-files.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { tablePartKey } from '../src/sinks/layout.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import { S3ObjectStore } from '../src/sinks/s3-store.js';
import { type BuiltVisync, builtVisync, NODE22 } from './helpers/built-bin.js';
import { runOnceCli, sim, tempDir } from './helpers/harness.js';
import { startS3rver } from './helpers/s3rver.js';

const NDJSON_GZ = { contentType: 'application/x-ndjson', contentEncoding: 'gzip' };

/** `count` part keys of `table`, spread over days and runs as nights write them. */
function partKeys(table: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    tablePartKey({
      table,
      partitionDate: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
      account: 'acme',
      runId: `20260201-nightly-${String(i).padStart(8, '0')}`,
      part: 0,
    }),
  );
}

/** The keys the store hands back to its caller, by any of its listing methods. */
function countingKeys(store: ObjectStore): { store: ObjectStore; keysRead: () => number } {
  let read = 0;
  const counted: ObjectStore = {
    location: store.location,
    put: (k, b, o) => store.put(k, b, o),
    get: (k) => store.get(k),
    delete: (k) => store.delete(k),
    list: async (prefix) => {
      const keys = await store.list(prefix);
      read += keys.length;
      return keys;
    },
    findKey: async (prefix, accept) => {
      const key = await store.findKey?.(prefix, accept);
      if (key !== undefined) read++;
      return key;
    },
  };
  return { store: counted, keysRead: () => read };
}

/** Many parts of reputation_claims (none of reputation), one of brands, strays beside them. */
async function fill(store: ObjectStore, claims: number): Promise<void> {
  for (const key of [...partKeys('reputation_claims', claims), ...partKeys('brands', 1)])
    await store.put(key, 'x', NDJSON_GZ);
  // Not part keys: a marker another tool left in a partition, and a file in the table's folder.
  await store.put('tables/prompts/dt=2026-01-01/_SUCCESS', '', { contentType: 'text/plain' });
  await store.put('tables/visibility_daily/README.txt', 'x', { contentType: 'text/plain' });
  await store.put(partKeys('visibility_daily', 1)[0] as string, 'x', NDJSON_GZ);
}

const EXPECTED = ['brands', 'reputation_claims', 'visibility_daily'];

describe('the tables with part files', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('fs: one key read per table with files, however many parts it holds', async () => {
    const real = new FsObjectStore(tempDir());
    await fill(real, 2_000);
    const { store, keysRead } = countingKeys(real);
    const found = await tablesWithFiles(store, WAREHOUSE_TABLES);
    expect([...found].sort()).toEqual(EXPECTED);
    // Listed whole, the store handed back all 2,003 part keys (and the strays).
    expect(keysRead()).toBe(EXPECTED.length);
  });

  it('S3: one ListObjectsV2 of one key per table folder, not a page per thousand parts', async () => {
    const s3rver = await startS3rver({ buckets: ['lake'] });
    cleanups.push(() => s3rver.close());
    // Pages of 100 keys stand in for S3's 1000: listed whole, 250 parts took three requests.
    const real = new S3ObjectStore(
      {
        bucket: 'lake',
        prefix: 'visync/',
        region: 'us-east-1',
        endpoint: s3rver.endpoint,
        forcePathStyle: true,
        requestTimeoutSeconds: 5,
        maxAttempts: 1,
      },
      { listPageSize: 100 },
    );
    cleanups.push(() => real.close());
    await fill(real, 250);
    const before = s3rver.requests.length;
    const { store, keysRead } = countingKeys(real);
    const found = await tablesWithFiles(store, WAREHOUSE_TABLES);
    expect([...found].sort()).toEqual(EXPECTED);
    expect(keysRead()).toBe(EXPECTED.length);

    const lists = s3rver.requests.slice(before).map((r) => new URL(r.url, 'http://s3').searchParams);
    const prefixOf = (table: string) => `visync/${tableFolder(table)}`;
    const listsOf = (table: string) => lists.filter((q) => q.get('prefix') === prefixOf(table));
    // Every question names one table's folder, with its slash: never `tables/reputation` alone.
    expect(lists.every((q) => q.get('list-type') === '2')).toBe(true);
    expect(new Set(lists.map((q) => q.get('prefix')))).toEqual(
      new Set(WAREHOUSE_TABLES.map((t) => prefixOf(t.name))),
    );
    // A folder of part keys only, or of none: one request for one key.
    for (const t of WAREHOUSE_TABLES.filter((t) => !['prompts', 'visibility_daily'].includes(t.name))) {
      expect(
        listsOf(t.name).map((q) => q.get('max-keys')),
        t.name,
      ).toEqual(['1']);
    }
    // A stray key first costs a page more, never more than the folder holds.
    expect(listsOf('prompts').length).toBeLessThanOrEqual(2);
    expect(listsOf('visibility_daily').length).toBeLessThanOrEqual(2);
  });
});

describe('the built visync export of a store where reputation has no parts and reputation_claims has', () => {
  let built: BuiltVisync;
  beforeAll(() => {
    built = builtVisync();
  }, 60_000);

  it('duckdb and dbt read reputation_claims and give reputation an empty view', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 6 });
    const dir = tempDir();
    const data = join(dir, 'data');
    expect((await runOnceCli(s, dir, [], { sinks: { fs: { dir: data } } })).code).toBe(0);
    rmSync(join(data, tableFolder('reputation')), { recursive: true });
    const visync = (args: string[]) =>
      execFileSync(NODE22, [built.bin, '--config', 'visync.yaml', ...args], { cwd: dir, encoding: 'utf8' });

    visync(['export', 'duckdb', '--root', data, '--out', 'views.sql']);
    const sql = readFileSync(join(dir, 'views.sql'), 'utf8');
    const empty = /No part files yet \(when this was generated\) for: ([^.]*)\./.exec(sql)?.[1]?.split(', ');
    expect(empty).toContain('reputation');
    expect(empty).not.toContain('reputation_claims');
    const instance = await DuckDBInstance.create(':memory:');
    const db = await instance.connect();
    try {
      await db.run(sql);
      const count = async (table: string) =>
        (await db.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM "${table}"`)).getRowObjectsJson()[0]?.n;
      expect(await count('reputation')).toBe(0);
      expect(await count('reputation_claims')).toBeGreaterThan(0);
    } finally {
      db.closeSync();
      instance.closeSync();
    }

    visync(['export', 'dbt', '--target', 'duckdb', '--root', data, '--out', 'dbt']);
    const sources = readFileSync(join(dir, 'dbt', 'models', 'sources.yml'), 'utf8');
    expect(sources).toMatch(/reputation_claims\/dt=\*/);
    expect(sources).not.toMatch(/tables\/reputation\/dt=\*/);
  });
});
