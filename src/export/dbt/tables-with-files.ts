// Which tables of a local store have part files yet: DuckDB's read_json fails on a glob that
// matches no file, so the dbt project reads the others as empty (./sources.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TableDef } from '../../catalogue/index.js';
import { tableFolder } from '../column-types.js';

/** The tables with at least one `.ndjson.gz` part under `root` (a local folder). */
export function tablesWithFiles(root: string, tables: readonly TableDef[]): Set<string> {
  const found = new Set<string>();
  for (const t of tables) {
    let names: string[];
    try {
      names = readdirSync(join(root, tableFolder(t.name)), { recursive: true, encoding: 'utf8' });
    } catch {
      continue; // no folder yet: no file
    }
    if (names.some((n) => n.endsWith('.ndjson.gz'))) found.add(t.name);
  }
  return found;
}
