// What `visync export duckdb` and `visync export dbt --target duckdb` cost as the store grows: both
// ask the store which tables have part files (src/export/tables-with-files.ts). Two stores in the
// real layout (tables/{table}/dt=../account=../run=../part-00000.ndjson.gz):
//   large: a year of a large agency, 12 tables x 365 nights x a 30-day window = 131,400 part files
//   small: two nights, 7 tables x 2 nights x a 5-day window = 70 part files
// each as an fs sink (a folder) and as S3 (s3rver, its folder written directly: 131,400 PUTs would
// take longer than the measure), then each export through the CLI in its own process, timed from
// spawn to exit; for S3 also the ListObjectsV2 requests it sent and the keys they asked for. When
// the CLI is this checkout's, the question alone (tablesWithFiles) is timed in this process too.
//   npm run bench:export [-- --runs 3 --bin built --out export-listing]
// --bin: `built` (default: `npm run build` first, then bin/visync.js), `dev`, or another checkout's
// bin (the code before, for a comparison). --no-s3 skips s3rver. Results: stdout and
// bench/results/<out>.json. Timings only, never a pass/fail test (test/export-listing.test.ts is).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { tablesWithFiles } from '../src/export/tables-with-files.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { tablePartKey } from '../src/sinks/layout.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import { S3ObjectStore } from '../src/sinks/s3-store.js';
import { startS3rver } from '../test/helpers/s3rver.js';
import { binToMeasure } from './lib/bin.js';
import { CleanupStack } from './lib/cleanup.js';
import { countList } from './lib/flags.js';
import { markdownTable, median, round } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    bin: { type: 'string', default: 'built' },
    out: { type: 'string', default: 'export-listing' },
    'no-s3': { type: 'boolean', default: false },
  },
});
const [RUNS] = countList('runs', values.runs) as [number];
if (!/^[\w-]+$/.test(values.out ?? ''))
  throw new Error(`--out: expected a file name without extension, got "${values.out}"`);
const BIN = binToMeasure(values.bin as string);
/** The CLI measured is this checkout's: the question alone is measured in this process too. */
const OWN_CODE = values.bin === 'built' || values.bin === 'dev';

interface Shape {
  name: string;
  tables: number;
  nights: number;
  window: number;
}
const SHAPES: Shape[] = [
  { name: 'small', tables: 7, nights: 2, window: 5 },
  { name: 'large', tables: 12, nights: 365, window: 30 },
];
const BUCKET = 'lake';
const PREFIX = 'visync/';
/** s3rver keeps an object as `<name>._S3rver_object` beside its MD5 (node_modules/s3rver/lib/stores/filesystem.js). */
const S3RVER_OBJECT = '._S3rver_object';
/** A gzip stream of no bytes: a part file's content does not matter to a listing. */
const PART = gzipSync('');
const PART_MD5 = createHash('md5').update(PART).digest('hex');

const day = (start: string, plus: number) =>
  new Date(Date.parse(`${start}T00:00:00Z`) + plus * 86_400_000).toISOString().slice(0, 10);

function* partKeys(shape: Shape): Generator<string> {
  for (const table of WAREHOUSE_TABLES.slice(0, shape.tables)) {
    for (let n = 0; n < shape.nights; n++) {
      const night = day('2025-01-01', n);
      const runId = `${night.replaceAll('-', '')}-nightly-${String(n).padStart(8, '0')}`;
      for (let w = 0; w < shape.window; w++) {
        const partitionDate = day(night, -w);
        yield tablePartKey({ table: table.name, partitionDate, account: 'acme', runId, part: 0 });
      }
    }
  }
}

/** Writes the shape's parts as an fs store under `fsDir` and as s3rver's objects under `s3Dir`; the count. */
function writeStores(shape: Shape, fsDir: string, s3Dir: string | undefined): number {
  let files = 0;
  const made = new Set<string>();
  const write = (path: string, body: Buffer | string) => {
    const folder = dirname(path);
    if (!made.has(folder)) mkdirSync(folder, { recursive: true });
    made.add(folder);
    writeFileSync(path, body);
  };
  for (const key of partKeys(shape)) {
    write(join(fsDir, key), PART);
    if (s3Dir) {
      const object = join(s3Dir, BUCKET, PREFIX, `${key}${S3RVER_OBJECT}`);
      write(object, PART);
      write(`${object}.md5`, PART_MD5);
    }
    files++;
  }
  return files;
}

interface Measure {
  store: string;
  shape: string;
  part_files: number;
  command: string;
  runs_ms: number[];
  median_ms: number;
  /** S3 only: ListObjectsV2 requests of one run, and the max-keys they asked for. */
  list_requests?: number;
  max_keys?: string[];
  /** Tables the export found without part files (its empty views). */
  empty_tables: number;
}

function visync(cwd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, '--config', 'visync.yaml', ...args], { cwd }, (err, _out, stderr) =>
      err ? reject(new Error(`visync ${args.join(' ')}: ${stderr || err.message}`)) : resolve(),
    );
  });
}

/** The tables named in the script's "No part files yet" comment (none: every table has files). */
function emptyTables(sql: string): number {
  return (
    /No part files yet \(when this was generated\) for: ([^.]*)\./.exec(sql)?.[1]?.split(', ').length ?? 0
  );
}

const COMMANDS: Record<string, (store: 'fs' | 's3', root: string) => { args: string[]; script: string }> = {
  'export duckdb': (store, root) => ({
    args: ['export', 'duckdb', ...(store === 'fs' ? ['--root', root] : ['--list']), '--out', 'views.sql'],
    script: 'views.sql',
  }),
  'export dbt': (store, root) => ({
    args: ['export', 'dbt', '--target', 'duckdb', ...(store === 'fs' ? ['--root', root] : ['--list'])],
    script: 'visync_dbt/models/sources.yml',
  }),
};

async function measure(
  work: string,
  store: 'fs' | 's3',
  shape: Shape,
  files: number,
  root: string,
  requests?: { url: string }[],
): Promise<Measure[]> {
  const out: Measure[] = [];
  for (const [command, make] of Object.entries(COMMANDS)) {
    const { args, script } = make(store, root);
    const runs: number[] = [];
    let lists: URLSearchParams[] = [];
    for (let i = 0; i < RUNS; i++) {
      rmSync(join(work, 'visync_dbt'), { recursive: true, force: true });
      const before = requests?.length ?? 0;
      const t0 = performance.now();
      await visync(work, args);
      runs.push(round(performance.now() - t0, 0));
      lists = listsSince(requests ?? [], before);
    }
    const text = readFileSync(join(work, script), 'utf8');
    // dbt's sources name an empty table by its typed SELECT ... WHERE FALSE instead of a read_json.
    const empty = command === 'export dbt' ? (text.match(/WHERE FALSE/g) ?? []).length : emptyTables(text);
    out.push({
      store,
      shape: shape.name,
      part_files: files,
      command,
      runs_ms: runs,
      median_ms: median(runs),
      ...(requests ? listFigures(lists, 1) : {}),
      empty_tables: empty,
    });
    console.log(JSON.stringify(out.at(-1)));
  }
  return out;
}

/** The ListObjectsV2 requests among s3rver's requests since `before`. */
function listsSince(requests: readonly { url: string }[], before: number): URLSearchParams[] {
  return requests
    .slice(before)
    .map((r) => new URL(r.url, 'http://s3').searchParams)
    .filter((q) => q.get('list-type') === '2');
}

/** Requests per run and the max-keys they asked for. */
function listFigures(lists: readonly URLSearchParams[], runs: number) {
  return {
    list_requests: lists.length / runs,
    max_keys: [...new Set(lists.map((q) => q.get('max-keys') ?? 'none'))],
  };
}

/** The question alone, without the process around it (this checkout's tablesWithFiles). */
async function listingOnly(
  store: ObjectStore,
  kind: 'fs' | 's3',
  shape: Shape,
  files: number,
  requests?: { url: string }[],
): Promise<Measure> {
  const runs: number[] = [];
  let found = 0;
  const before = requests?.length ?? 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    found = (await tablesWithFiles(store, WAREHOUSE_TABLES)).size;
    runs.push(round(performance.now() - t0, 1));
  }
  const m: Measure = {
    store: kind,
    shape: shape.name,
    part_files: files,
    command: 'tablesWithFiles in process',
    runs_ms: runs,
    median_ms: median(runs),
    ...(requests ? listFigures(listsSince(requests, before), RUNS) : {}),
    empty_tables: WAREHOUSE_TABLES.length - found,
  };
  console.log(JSON.stringify(m));
  return m;
}

async function main(): Promise<void> {
  const cleanup = new CleanupStack();
  cleanup.onSignals();
  const results: Measure[] = [];
  try {
    for (const shape of SHAPES) {
      await cleanup.scope(async (defer) => {
        const work = mkdtempSync(join(tmpdir(), `visync-bench-export-${shape.name}-`));
        defer(() => rmSync(work, { recursive: true, force: true }));
        const fsDir = join(work, 'data');
        const s3Dir = values['no-s3'] ? undefined : join(work, 's3rver');
        const t0 = performance.now();
        const files = writeStores(shape, fsDir, s3Dir);
        console.log(
          `${shape.name}: ${files} part files written in ${round((performance.now() - t0) / 1000, 1)} s`,
        );
        const config = (sinks: unknown) =>
          writeFileSync(
            join(work, 'visync.yaml'),
            stringify({
              accounts: [{ name: 'acme', apiKey: 'bench-key', baseUrl: 'https://visibility.example/api/v1' }],
              sinks,
            }),
          );
        config({ fs: { dir: fsDir } });
        results.push(...(await measure(work, 'fs', shape, files, fsDir)));
        if (OWN_CODE) results.push(await listingOnly(new FsObjectStore(fsDir), 'fs', shape, files));
        if (!s3Dir) return;
        const s3rver = await startS3rver({ directory: s3Dir });
        defer(() => s3rver.close());
        config({
          s3: {
            bucket: BUCKET,
            prefix: PREFIX,
            region: 'us-east-1',
            endpoint: s3rver.endpoint,
            forcePathStyle: true,
          },
        });
        results.push(...(await measure(work, 's3', shape, files, '', s3rver.requests)));
        if (!OWN_CODE) return;
        const store = new S3ObjectStore({
          bucket: BUCKET,
          prefix: PREFIX,
          region: 'us-east-1',
          endpoint: s3rver.endpoint,
          forcePathStyle: true,
          requestTimeoutSeconds: 30,
          maxAttempts: 1,
        });
        defer(() => store.close());
        results.push(await listingOnly(store, 's3', shape, files, s3rver.requests));
      });
    }
  } finally {
    await cleanup.run();
  }
  const table = markdownTable(
    ['store', 'part files', 'command', 'median ms', 'runs ms', 'LIST requests (max-keys)', 'empty views'],
    results.map((r) => [
      r.store,
      String(r.part_files),
      r.command,
      String(r.median_ms),
      r.runs_ms.join(', '),
      r.list_requests === undefined ? '-' : `${r.list_requests} (${r.max_keys?.join(', ')})`,
      String(r.empty_tables),
    ]),
  );
  console.log(`\n${table}`);
  const file = new URL(`results/${values.out}.json`, import.meta.url);
  writeFileSync(file, `${JSON.stringify({ bin: values.bin, runs: RUNS, results }, null, 2)}\n`);
  console.log(`\nwrote ${file.pathname}`);
}

await main();
