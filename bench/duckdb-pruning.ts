// What a filter on `dt` saves a DuckDB user of `visync export duckdb`: a year of nightly parts of
// visibility_daily in the real layout (tables/visibility_daily/dt=../account=../run=../part-00000.ndjson.gz,
// rows written by the catalogue's NDJSON writer), then the same day read through the exported view
// filtered by `dt` (the folder: DuckDB skips the other files) and by `date` only (a data column:
// every file is opened). Files read come from DuckDB's profiler (EXPLAIN (ANALYZE, FORMAT JSON)).
//   npm run bench:duckdb [-- --days 365 --window 30 --workspaces 5 --runs 5]
// Each night's run re-reads a window of days, and each row is filed under its own date, so a day's
// folder holds one part per run that covered it (docs/storage.md).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableByName, toNdjsonLine, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { tablePartPattern } from '../src/export/column-types.js';
import { duckdbViewsSql } from '../src/export/duckdb.js';
import { tablePartKey } from '../src/sinks/layout.js';

const { values } = parseArgs({
  options: {
    days: { type: 'string', default: '365' },
    window: { type: 'string', default: '30' },
    workspaces: { type: 'string', default: '5' },
    runs: { type: 'string', default: '5' },
  },
});
const DAYS = Number(values.days);
const WINDOW = Number(values.window);
const WORKSPACES = Number(values.workspaces);
const RUNS = Number(values.runs);

const day = (start: string, plus: number) =>
  new Date(Date.parse(`${start}T00:00:00Z`) + plus * 86_400_000).toISOString().slice(0, 10);

/** Writes the nightly parts; returns the number of files. */
function writeYear(root: string): number {
  const table = tableByName('visibility_daily');
  const first = '2025-01-01';
  let files = 0;
  for (let n = 0; n < DAYS; n++) {
    const night = day(first, n);
    const runId = `${night.replaceAll('-', '')}-nightly-${String(n).padStart(8, '0')}`;
    const extractedAt = `${night}T02:00:05.000Z`;
    for (let w = 0; w < WINDOW; w++) {
      const date = day(night, -w);
      const rows = Array.from({ length: WORKSPACES }, (_, i) =>
        toNdjsonLine(table, {
          account: 'acme',
          brand_id: `ws_${i}`,
          date,
          overall_score: 40 + ((n + i) % 30),
          share_of_voice: 0.1 + (i % 5) / 10,
          mentions: 10 + i,
          prompts_tracked: 25,
          run_id: runId,
          extracted_at: extractedAt,
          payload: { date, overall_score: 40 + ((n + i) % 30) },
        }),
      );
      const key = tablePartKey({ table: table.name, partitionDate: date, account: 'acme', runId, part: 0 });
      mkdirSync(dirname(join(root, key)), { recursive: true });
      writeFileSync(join(root, key), gzipSync(`${rows.join('\n')}\n`));
      files++;
    }
  }
  return files;
}

interface PlanNode {
  operator_type?: string;
  extra_info?: Record<string, string>;
  children?: PlanNode[];
}

/** Files the scan read, from DuckDB's profiler (EXPLAIN (ANALYZE, FORMAT JSON)). */
function scanOf(node: PlanNode): { files: string } | undefined {
  if (node.operator_type === 'TABLE_SCAN') {
    const info = node.extra_info ?? {};
    const scanning = info['Scanning Files'];
    if (info.Function === 'GLOB') return { files: 'none (lists them)' };
    const read = info['Total Files Read'] ?? '?';
    return { files: scanning ? `${read} (of ${scanning.split('/')[1]})` : read };
  }
  for (const c of node.children ?? []) {
    const found = scanOf(c);
    if (found) return found;
  }
  return undefined;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'visync-bench-duckdb-'));
  try {
    const files = writeYear(root);
    const sql = duckdbViewsSql({ tables: WAREHOUSE_TABLES, root, withFiles: new Set(['visibility_daily']) });
    const instance = await DuckDBInstance.create(':memory:');
    const db = await instance.connect();
    await db.run("SET TimeZone = 'UTC'");
    await db.run(sql);
    const target = day('2025-01-01', Math.floor(DAYS / 2));
    const glob = join(
      root,
      tablePartPattern('visibility_daily', { dt: '*', account: '*', run: '*', part: '*' }),
    );
    const queries = {
      // What every query of the view pays before any file is read: listing the table's files.
      glob: `SELECT count(*) AS n FROM glob('${glob}')`,
      dt: `SELECT count(*) AS n, avg(overall_score) AS score FROM visibility_daily WHERE dt = DATE '${target}'`,
      date: `SELECT count(*) AS n, avg(overall_score) AS score FROM visibility_daily WHERE date = DATE '${target}'`,
    };
    console.log(
      `${files} part files (${DAYS} nights x ${WINDOW}-day window, ${WORKSPACES} workspaces); day ${target}`,
    );
    console.log('| filter | rows | files read | median ms | min ms |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const [name, q] of Object.entries(queries)) {
      const rows = (await db.runAndReadAll(q)).getRowObjectsJson()[0];
      const plan = (await db.runAndReadAll(`EXPLAIN (ANALYZE, FORMAT JSON) ${q}`)).getRowObjectsJson();
      const text = String(plan[0]?.explain_value);
      const scan = scanOf(JSON.parse(text) as PlanNode);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = process.hrtime.bigint();
        await db.runAndReadAll(q);
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)] as number;
      console.log(
        `| \`${name}\` | ${rows?.n} | ${scan?.files} | ${median.toFixed(0)} | ${(times[0] as number).toFixed(0)} |`,
      );
      if (process.env.BENCH_PLAN) console.log(text);
    }
    db.closeSync();
    instance.closeSync();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
