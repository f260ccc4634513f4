// A dbt project of `visync export dbt --target duckdb` compiled as dbt-core with dbt-duckdb would
// compile it (dbt itself cannot be installed here), then run in real DuckDB:
// - `{{ source('visync', 't') }}` -> the table's `external_location` (formatter oldstyle: `%%` is `%`)
// - `{{ ref('m') }}` -> the model's relation, `{{ config(...) }}` -> nothing
// - the data tests of the YAML files -> the SQL of dbt's own generic tests (not_null, unique,
//   accepted_values, as in dbt-adapters' macros/generic_test_sql), and the project's generic tests
//   from their files under tests/generic/, rendered for the arguments given.
// Anything else that reads as Jinja throws: the test must not run SQL dbt would not.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parse } from 'yaml';

type DataTest = string | Record<string, Record<string, unknown>>;
interface Column {
  name: string;
  data_tests?: DataTest[];
}
interface Node {
  name: string;
  config?: {
    external_location?: string;
    formatter?: string;
    loaded_at_field?: string;
    freshness?: { filter?: string };
  };
  data_tests?: DataTest[];
  columns?: Column[];
}

export interface CompiledTest {
  /** e.g. `source visync.brands: visync_unique_key(account, brand_id, run_id)`. */
  name: string;
  severity: 'error' | 'warn';
  sql: string;
}

export interface DbtProject {
  sources: Map<string, Node>;
  models: Map<string, { node: Node | undefined; sql: string }>;
  /** A model's SQL with source(), ref() and config() replaced. */
  compileModel(name: string): string;
  tests: CompiledTest[];
  /** `select max(loaded_at) ... where filter` of each source table with freshness. */
  freshness: { table: string; sql: string }[];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => f.split('\\').join('/'));
}

const JINJA = /\{[{%#]/;

export function loadDbtProject(dir: string): DbtProject {
  const files = filesUnder(dir);
  const sourcesDoc = parse(readFileSync(join(dir, 'models/sources.yml'), 'utf8')) as {
    sources: { name: string; tables: Node[] }[];
  };
  const sources = new Map<string, Node>();
  for (const s of sourcesDoc.sources) for (const t of s.tables) sources.set(`${s.name}.${t.name}`, t);
  const modelNodes = new Map<string, Node>();
  for (const f of files.filter(
    (x) => x.startsWith('models/') && x.endsWith('.yml') && x !== 'models/sources.yml',
  )) {
    const doc = parse(readFileSync(join(dir, f), 'utf8')) as { models?: Node[] };
    for (const m of doc.models ?? []) modelNodes.set(m.name, m);
  }
  const models = new Map<string, { node: Node | undefined; sql: string }>();
  for (const f of files.filter((x) => x.startsWith('models/') && x.endsWith('.sql'))) {
    const name = f
      .split('/')
      .at(-1)!
      .replace(/\.sql$/, '');
    models.set(name, { node: modelNodes.get(name), sql: readFileSync(join(dir, f), 'utf8') });
  }

  const sourceRelation = (source: string, table: string): string => {
    const node = sources.get(`${source}.${table}`);
    const location = node?.config?.external_location;
    if (!location) throw new Error(`source ${source}.${table} has no external_location`);
    if (node.config?.formatter !== 'oldstyle')
      throw new Error(`source ${table}: expected formatter oldstyle`);
    // Python's `%` with a mapping: `%%` is `%`, and a lone `%` would be a format error.
    if (/%[^%]/.test(location.replaceAll('%%', ''))) throw new Error(`source ${table}: lone % in location`);
    return location.replaceAll('%%', '%');
  };
  const compile = (sql: string, what: string): string => {
    const out = sql
      .replace(/\{\{\s*config\([^)]*\)\s*\}\}/g, '')
      .replace(/\{\{\s*source\(\s*'([^']+)'\s*,\s*'([^']+)'\s*\)\s*\}\}/g, (_m, s: string, t: string) =>
        sourceRelation(s, t),
      )
      .replace(/\{\{\s*ref\(\s*'([^']+)'\s*\)\s*\}\}/g, (_m, m: string) => {
        if (!models.has(m)) throw new Error(`${what}: ref('${m}') names no model`);
        return `"${m}"`;
      });
    if (JINJA.test(out))
      throw new Error(`${what}: Jinja left after compiling: ${out.match(/.*\{[{%#].*/)?.[0]}`);
    return out;
  };

  // The project's own generic tests: `{% test name(model, args...) %} body {% endtest %}`.
  const generic = new Map<string, { params: string[]; body: string }>();
  for (const f of files.filter((x) => x.startsWith('tests/generic/') && x.endsWith('.sql'))) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/\{%\s*test\s+(\w+)\(([^)]*)\)\s*%\}([\s\S]*?)\{%\s*endtest\s*%\}/g))
      generic.set(m[1]!, { params: m[2]!.split(',').map((p) => p.trim()), body: m[3]! });
  }
  const renderGeneric = (test: string, relation: string, args: Record<string, unknown>): string => {
    const g = generic.get(test);
    if (!g) throw new Error(`no generic test ${test} in tests/generic/`);
    let sql = g.body.replace(/\{\{\s*model\s*\}\}/g, relation);
    for (const p of g.params.filter((x) => x !== 'model')) {
      const value = args[p];
      sql = sql.replace(
        new RegExp(`\\{\\{\\s*${p}\\s*\\|\\s*join\\('([^']*)'\\)\\s*\\}\\}`, 'g'),
        (_m, sep: string) => {
          if (!Array.isArray(value)) throw new Error(`${test}: ${p} must be a list`);
          return value.join(sep);
        },
      );
    }
    if (JINJA.test(sql)) throw new Error(`${test}: Jinja left: ${sql}`);
    return sql;
  };

  const tests: CompiledTest[] = [];
  const addTests = (owner: string, relation: string, node: Node) => {
    const one = (t: DataTest, column?: string) => {
      const [name, args] =
        typeof t === 'string' ? [t, {}] : (Object.entries(t)[0] as [string, Record<string, unknown>]);
      const config = (args.config ?? {}) as { severity?: string; where?: string };
      if (config.where || args.where) throw new Error(`${owner}: where is not compiled here`);
      const severity = config.severity === 'warn' ? 'warn' : 'error';
      const label = `${owner}${column ? `.${column}` : ''}: ${name}`;
      let sql: string;
      if (name === 'not_null') sql = `select ${column} from ${relation} where ${column} is null`;
      else if (name === 'unique')
        sql = [
          'select unique_field, count(*) as n_records',
          `from (select ${column} as unique_field from ${relation} where ${column} is not null) dbt_subquery`,
          'group by unique_field having count(*) > 1',
        ].join('\n');
      else if (name === 'accepted_values') {
        const values = (args.values as string[]).map((v) => `'${v.replaceAll("'", "''")}'`).join(', ');
        sql = [
          `with all_values as (select ${column} as value_field, count(*) as n_records from ${relation} group by ${column})`,
          `select * from all_values where value_field not in (${values})`,
        ].join('\n');
      } else sql = renderGeneric(name, relation, { ...args, ...(column ? { column_name: column } : {}) });
      tests.push({
        name: `${label}${name === 'visync_unique_key' ? `(${(args.columns as string[]).join(', ')})` : ''}`,
        severity,
        sql,
      });
    };
    for (const t of node.data_tests ?? []) one(t);
    for (const c of node.columns ?? []) for (const t of c.data_tests ?? []) one(t, c.name);
  };
  const freshness: { table: string; sql: string }[] = [];
  for (const [key, node] of sources) {
    const [s, t] = key.split('.') as [string, string];
    const relation = sourceRelation(s, t);
    addTests(`source ${key}`, relation, node);
    const field = node.config?.loaded_at_field;
    if (field) {
      const filter = node.config?.freshness?.filter;
      freshness.push({
        table: t,
        sql: `select max(${field}) as max_loaded_at from ${relation}${filter ? ` where ${filter}` : ''}`,
      });
    }
  }
  for (const [name, m] of models) if (m.node) addTests(`model ${name}`, `"${name}"`, m.node);
  return {
    sources,
    models,
    compileModel: (name) => compile(models.get(name)!.sql, `model ${name}`),
    tests,
    freshness,
  };
}

/** What `dbt build` does here: each model created as a view, then every test; returns failures. */
export async function dbtBuild(
  c: DuckDBConnection,
  project: DbtProject,
): Promise<{ failures: { test: string; rows: unknown[] }[]; ran: number }> {
  for (const name of project.models.keys())
    await c.run(`CREATE OR REPLACE VIEW "${name}" AS ${project.compileModel(name)}`);
  const failures: { test: string; rows: unknown[] }[] = [];
  for (const t of project.tests) {
    const rows = (await c.runAndReadAll(t.sql)).getRowObjectsJson();
    if (rows.length) failures.push({ test: `${t.name} [${t.severity}]`, rows: rows.slice(0, 3) });
  }
  return { failures, ran: project.tests.length };
}

export function projectFiles(dir: string): string[] {
  return filesUnder(dir)
    .filter((f) => !relative(dir, join(dir, f)).startsWith('.'))
    .sort();
}
