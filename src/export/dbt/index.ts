// `visync export dbt`: a dbt project over the data visync syncs (docs/dbt.md), for BigQuery, DuckDB
// over the object store, or Athena. The settings come from the config (src/cli/export.ts); the
// files from ./project-files.ts.
import type { TableDef } from '../../catalogue/index.js';
import type { RenderedView } from './models.js';
import { adapterOf } from './project.js';
import { type DbtFile, dbtProjectFiles } from './project-files.js';
import type { DbtTarget, SourceLocation } from './sources.js';

export { rowKey } from './data-tests.js';
export { sourceRef } from './models.js';

/** The project's list of the files `visync export dbt` wrote (docs/dbt.md). */
export const RECORD_FILE = '.visync-export';
export const RECORD_HEADER =
  '# The files `visync export dbt` wrote here: the next export replaces them and removes those it no longer writes.';

/** Default warn threshold: one nightly late by a few hours (alerts.staleAfterHours has the same default). */
export const DEFAULT_WARN_AFTER_HOURS = 30;
/** Error one nightly after the warning: two runs in a row missing is an outage, not a late run. */
const ERROR_AFTER_EXTRA_HOURS = 24;

export interface DbtProjectSettings {
  target: DbtTarget;
  tables: readonly TableDef[];
  /** Every view rendered for the target's engine with sourceRef() naming the base tables. */
  views: readonly RenderedView[];
  warnAfterHours: number;
  bigquery?:
    | { project: string; dataset: string; location: string; requirePartitionFilter: boolean }
    | undefined;
  /** duckdb: the store root as dbt finds it from the project folder, or s3://bucket/prefix. */
  root: string;
  /** duckdb: the tables with part files in the store (undefined: not listed, every table is read). */
  withFiles?: ReadonlySet<string> | undefined;
  /** athena: the Glue database of the visync tables. */
  athenaSchema: string;
  /** The S3 sink's region, when configured. */
  region?: string | undefined;
}

function location(s: DbtProjectSettings): SourceLocation {
  switch (s.target) {
    case 'bigquery': {
      if (!s.bigquery) throw new Error('the bigquery target needs the BigQuery dataset');
      const { project, dataset, requirePartitionFilter } = s.bigquery;
      return { target: 'bigquery', project, dataset, requirePartitionFilter };
    }
    case 'duckdb':
      return { target: 'duckdb', root: s.root, withFiles: s.withFiles };
    case 'athena':
      return { target: 'athena', catalog: 'awsdatacatalog', schema: s.athenaSchema };
  }
}

export function dbtProject(s: DbtProjectSettings): DbtFile[] {
  return dbtProjectFiles({
    tables: s.tables,
    views: s.views,
    at: location(s),
    freshness: {
      warnAfterHours: s.warnAfterHours,
      errorAfterHours: s.warnAfterHours + ERROR_AFTER_EXTRA_HOURS,
    },
    profile: {
      target: s.target,
      ...(s.bigquery ? { bigquery: s.bigquery } : {}),
      s3Root: /^s3:\/\//.test(s.root),
      ...(s.region ? { region: s.region } : {}),
    },
  });
}

/** What to run next, from the project folder. */
export function nextCommands(target: DbtTarget): string[] {
  return [
    `pip install dbt-core ${adapterOf(target)}   # once`,
    'dbt build --profiles-dir .   # builds the models and runs every data test',
    'dbt source freshness --profiles-dir .',
  ];
}
