// The current state and the changes, for every engine that reads visync's data: each view of
// docs/tables.md "Views" as a SELECT (no CREATE) in BigQuery, DuckDB or Athena (Trino) SQL, from the
// one definition in ./views.ts and ./change-views.ts. `visync export duckdb|athena|dbt` and the
// BigQuery sink's views all come from here.
import { type Dialect, sqlFor, type TableRef } from './sql-dialect.js';
import { VIEWS } from './views.js';

export { DIALECTS, type Dialect, type TableRef } from './sql-dialect.js';

export interface CurrentStateView {
  name: string;
  description: string;
  /** A SELECT statement in the dialect; base tables named by `ref`. */
  sql: string;
  /** The columns that make a row unique, where the view has a grain (docs/tables.md). */
  key?: readonly string[];
}

/**
 * Every view, rendered for `dialect`, with `ref(table)` naming a base table: BigQuery
 * `` `project.dataset.brands` ``, DuckDB `"brands"`, dbt `{{ source('visync', 'brands') }}`.
 */
export function currentStateViews(dialect: Dialect, ref: TableRef): CurrentStateView[] {
  const sql = sqlFor(dialect, ref);
  return VIEWS.map((v) => ({
    name: v.name,
    description: v.description,
    sql: v.render(sql),
    ...(v.key ? { key: v.key } : {}),
  }));
}
