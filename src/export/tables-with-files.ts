// Which tables already have part files in the object store: `visync export duckdb` and `export dbt
// --target duckdb` read those and write the others as empty typed views (DuckDB fails on a glob that
// matches no file). One question per table, for one of its part keys (ObjectStore.findKey): the
// answer costs the same for a table of 70 parts or of a year's 131,400 (docs/benchmarks.md).
import type { TableDef } from '../catalogue/index.js';
import { parseTablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { tableFolder } from './column-types.js';

export async function tablesWithFiles(
  store: Pick<ObjectStore, 'list' | 'findKey'>,
  tables: readonly TableDef[],
): Promise<Set<string>> {
  const found = await Promise.all(
    tables.map(async (t) => {
      // The folder ends with `/`, so `tables/reputation/` never holds `tables/reputation_claims/...`;
      // and only a part key counts, not a stray file another tool left there.
      const own = (key: string) => parseTablePartKey(key)?.table === t.name;
      const prefix = tableFolder(t.name);
      const key = store.findKey ? await store.findKey(prefix, own) : (await store.list(prefix)).find(own);
      return key === undefined ? undefined : t.name;
    }),
  );
  return new Set(found.filter((name) => name !== undefined));
}
