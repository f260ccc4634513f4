// The sections of docs/ that the files `visync export` writes point their readers at
// (`docs/pipeline.md "Athena"`) are headings of those pages: a reader who follows the pointer finds
// it (issue #41, case 5: the Athena DDL named a docs/storage.md section that did not exist).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentStateViews, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { athenaDdl } from '../src/export/athena.js';
import { dbtProject, sourceRef } from '../src/export/dbt/index.js';
import { duckdbCurrentStateViews, duckdbViewsSql } from '../src/export/duckdb.js';

const ROOT = join(import.meta.dirname, '..');

const headings = (page: string): string[] =>
  readFileSync(join(ROOT, 'docs', page), 'utf8')
    .split('\n')
    .filter((l) => /^#+ /.test(l))
    .map((l) => l.replace(/^#+ /, '').trim().toLowerCase());

/** `docs/page.md "Section"` pointers of a generated text, its comment markers and line breaks read through. */
function pointers(text: string): [string, string][] {
  const flat = text.replaceAll(/\n\s*(--|#)\s*/g, ' ');
  return [...flat.matchAll(/docs\/([a-z0-9-]+\.md),? "([^"]+)"/g)].map((m) => [
    m[1] as string,
    m[2] as string,
  ]);
}

function exported(): string[] {
  const tables = WAREHOUSE_TABLES;
  const dbt = (target: 'bigquery' | 'duckdb' | 'athena') =>
    dbtProject({
      target,
      tables,
      views: currentStateViews(target, sourceRef),
      warnAfterHours: 30,
      bigquery: { project: 'p', dataset: 'd', location: 'EU', requirePartitionFilter: false },
      root: '../data',
      athenaSchema: 'visync',
    }).map((f) => f.text);
  return [
    athenaDdl({ tables, location: 's3://bucket/visync/', accounts: ['acme'] }),
    duckdbViewsSql({ tables, root: '/data', views: duckdbCurrentStateViews() }),
    ...dbt('bigquery'),
    ...dbt('duckdb'),
    ...dbt('athena'),
  ];
}

describe('pointers into docs/ in the exported files', () => {
  it('every `docs/page.md "Section"` names a heading of that page', () => {
    const all = exported().flatMap(pointers);
    expect(all.map(([p, s]) => `${p} ${s}`)).toContain('pipeline.md Athena');
    // A heading may go on after a colon: "Brand watch" is "Brand watch: what changed for each client".
    const names = (page: string, section: string) =>
      headings(page).some((h) => h === section.toLowerCase() || h.startsWith(`${section.toLowerCase()}:`));
    const missing = all.filter(([page, section]) => !names(page, section));
    expect(missing.map(([p, s]) => `${p} "${s}"`)).toEqual([]);
  });
});
