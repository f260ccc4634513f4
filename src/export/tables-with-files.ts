// Which tables already have part files in the object store: `visync export duckdb` reads those and
// writes the others as empty typed views (DuckDB fails on a glob that matches no file).
import type { TableDef } from '../catalogue/index.js';
import { parseTablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { tableFolder } from './column-types.js';

export async function tablesWithFiles(
  store: Pick<ObjectStore, 'list'>,
  tables: readonly TableDef[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const t of tables) {
    const keys = await store.list(tableFolder(t.name));
    if (keys.some((k) => parseTablePartKey(k)?.table === t.name)) found.add(t.name);
  }
  return found;
}
