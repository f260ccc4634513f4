// `visync export athena`: statements a user can paste one at a time (or run file by file with
// --split), each parsing as Athena takes it: the DDL with dt-sql-parser's Hive grammar (Athena DDL
// is Hive's), the views with its Trino grammar (Athena's engine). The NDJSON a real run wrote must
// read as the DDL declares: every field a declared column of a matching type, one row per line.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { currentStateViews, VIEWS, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { athenaStatements, TIMESTAMP_FORMATS } from '../src/export/athena.js';
import type { Manifest } from '../src/records/manifest.js';
import { parseManifestKey, parseTablePartKey } from '../src/sinks/layout.js';
import {
  configFile,
  listFiles,
  readBytes,
  readText,
  runOnceCli,
  sim,
  tempDir,
  visyncCli,
} from './helpers/harness.js';
import { sqlGrammars } from './helpers/sql-grammars.js';

const { HiveSQL, TrinoSQL } = await sqlGrammars();
const hive = new HiveSQL();
const trino = new TrinoSQL();

/** The statement without its comment lines and final `;`, as one query of Athena. */
const body = (sql: string) =>
  sql
    .split('\n')
    .filter((l) => !l.startsWith('--'))
    .join('\n')
    .trim()
    .replace(/;$/, '');

/** Parse errors of one statement: DDL by the Hive grammar, views by the Trino grammar. */
function errors(sql: string): string[] {
  const q = body(sql);
  const parser = /^CREATE EXTERNAL TABLE/.test(q) ? hive : trino;
  return parser.validate(q).map((e) => e.message);
}

/** A java.time pattern of TIMESTAMP_FORMATS as a regular expression for the text it accepts. */
function patternRegex(pattern: string): RegExp {
  const re = pattern
    .replace(/'([^']*)'/g, (_m, lit: string) => `\u0000${lit}\u0000`)
    .replace(/yyyy/g, '\\d{4}')
    .replace(/SSS/g, '\\d{3}')
    .replace(/MM|dd|HH|mm|ss/g, '\\d{2}')
    .replace(/\u0000([^\u0000]*)\u0000/g, (_m, lit: string) => lit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${re}$`);
}

/** Whether a JSON value reads as the declared Athena type under the OpenX SerDe. */
function reads(type: string, v: unknown): boolean {
  if (v === null) return true;
  const array = /^array<(.+)>$/.exec(type);
  if (array) return Array.isArray(v) && v.every((x) => reads(array[1] as string, x));
  switch (type) {
    case 'string':
      return true; // a scalar as its text, an object or array as its JSON text
    case 'bigint':
      return Number.isInteger(v);
    case 'double':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);
    case 'timestamp':
      return typeof v === 'string' && TIMESTAMP_FORMATS.split(',').some((p) => patternRegex(p).test(v));
    default:
      return false;
  }
}

/** Declared columns of each CREATE EXTERNAL TABLE: name -> type (partitions included). */
function declared(statements: { sql: string }[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const { sql } of statements) {
    const name = /CREATE EXTERNAL TABLE IF NOT EXISTS `(\w+)`/.exec(sql)?.[1];
    if (!name) continue;
    const cols = new Map([...sql.matchAll(/^ {2}`(\w+)` (\S+) COMMENT /gm)].map((m) => [m[1]!, m[2]!]));
    for (const m of (/PARTITIONED BY \((.*)\)/.exec(sql)?.[1] ?? '').matchAll(/`(\w+)` (\w+)/g))
      cols.set(m[1]!, m[2]!);
    out.set(name, cols);
  }
  return out;
}

describe('visync export athena: statements Athena runs one at a time', () => {
  it('every statement parses (DDL as Hive, views as Trino), tables first, every view included', () => {
    const statements = athenaStatements({
      tables: WAREHOUSE_TABLES,
      location: 's3://lake/v/',
      accounts: ['acme'],
    });
    expect(statements.map((s) => s.file.replace(/^\d+-|\.sql$/g, ''))).toEqual([
      ...WAREHOUSE_TABLES.map((t) => t.name),
      ...VIEWS.map((v) => v.name),
    ]);
    expect(statements.map((s) => s.file)).toEqual([...statements.map((s) => s.file)].sort());
    for (const s of statements) {
      expect(errors(s.sql), s.file).toEqual([]);
      // One statement each: a `;` only at its end.
      const code = body(s.sql).replace(/'(?:[^'\\]|\\.|'')*'/g, "''");
      expect(code.includes(';'), s.file).toBe(false);
    }
    // The parsers do reject what Athena would: BigQuery's QUALIFY and backticks are not Trino.
    const bigquery = currentStateViews('bigquery', (t) => `\`d.${t}\``);
    expect(errors(`CREATE OR REPLACE VIEW "x" AS ${bigquery[0]!.sql}`).length).toBeGreaterThan(0);
    expect(
      errors("CREATE EXTERNAL TABLE IF NOT EXISTS `t` (`a` string) LOCATION 's3://x/' WITH"),
    ).not.toEqual([]);
  });

  it('--split writes one numbered file per statement; the single file says to run them one by one', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 3 });
    const dir = tempDir();
    const { path } = configFile(s, dir);
    const out = join(dir, 'athena');
    const r = await visyncCli(path, ['export', 'athena', '--root', 's3://lake/visync', '--split', out]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const files = readdirSync(out).sort();
    expect(files).toHaveLength(WAREHOUSE_TABLES.length + VIEWS.length);
    expect(files[0]).toBe('01-accounts.sql');
    for (const f of files) expect(errors(readFileSync(join(out, f), 'utf8')), f).toEqual([]);
    // The root as given: no slash added inside the bucket path, no absolute rewriting.
    expect(readFileSync(join(out, files[1]!), 'utf8')).toContain(
      "LOCATION 's3://lake/visync/tables/brands/'",
    );

    const single = await visyncCli(path, ['export', 'athena', '--root', 's3://lake/visync/']);
    const text = single.out.join('\n');
    expect(text).toContain('Athena runs ONE statement per query');
    expect(text.match(/^-- \[\d+\/\d+\] /gm)).toHaveLength(files.length);
    expect(text).toContain('CREATE OR REPLACE VIEW "brands_latest" AS');
  });

  it('reads the NDJSON of a real run as declared: every field a column of its type, one row per line', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 9 });
    const dir = tempDir();
    expect((await runOnceCli(s, dir, [])).code).toBe(0);
    const columns = declared(
      athenaStatements({ tables: WAREHOUSE_TABLES, location: 's3://x/', accounts: ['acme'] }),
    );
    const manifest = listFiles(dir)
      .filter((k) => parseManifestKey(k))
      .map((k) => JSON.parse(readText(dir, k)) as Manifest)[0]!;
    const expected = new Map<string, number>();
    for (const f of manifest.files) {
      const part = parseTablePartKey(f.key);
      if (part) expected.set(part.table, (expected.get(part.table) ?? 0) + (f.rows ?? 0));
    }
    const counted = new Map<string, number>();
    const timestamps = new Set<string>();
    for (const key of listFiles(dir)) {
      const part = parseTablePartKey(key);
      if (!part) continue;
      const cols = columns.get(part.table)!;
      // The SerDe reads one row per line: no line may be empty or hold a line break of its own.
      const lines = gunzipSync(readBytes(dir, key)).toString('utf8').replace(/\n$/, '').split('\n');
      for (const line of lines) {
        const row = JSON.parse(line) as Record<string, unknown>;
        for (const [field, value] of Object.entries(row)) {
          const type = cols.get(field);
          expect(type, `${part.table}.${field} is declared`).toBeDefined();
          expect(
            reads(type as string, value),
            `${part.table}.${field} = ${JSON.stringify(value)} as ${type}`,
          ).toBe(true);
          if (type === 'timestamp' && value !== null) timestamps.add(part.table);
        }
        // The partition column holds the folder's value, so reading it from the folder loses nothing.
        expect(row.account).toBe(part.account);
      }
      counted.set(part.table, (counted.get(part.table) ?? 0) + lines.length);
    }
    expect(counted).toEqual(expected);
    expect(timestamps.has('sync_runs')).toBe(true);
    expect(timestamps.has('brands')).toBe(true);
  });
});
