// The shape of a spreadsheet table (./report-tables.ts builds them, ./csv.ts and ./xlsx.ts write
// them): its columns and typed cells, the table names, and the helpers that word headers in the
// report's language. Its own module so the section builders share it without a cycle. Pure.
import type { ReportModel } from '../model/report-shape.js';
import type { Formatters } from '../render/format.js';

/**
 * How a column's values read: `number` a score or mean (one decimal in a workbook), `count` a whole
 * number, `percent` a share in percent (35.2; a workbook stores 0.352 as a percentage), `delta` and
 * `count_delta` a signed change, `percent_delta` a share's signed change in percentage points (-4.5;
 * a workbook shows the page's unit, "-4,5 Pp.", never a "%" that reads as relative), `date` a day, `instant` a UTC time, `text` anything else.
 */
export type ColumnKind =
  | 'text'
  | 'number'
  | 'count'
  | 'percent'
  | 'delta'
  | 'count_delta'
  | 'percent_delta'
  | 'date'
  | 'instant';

export type CellValue = string | number | null;

export interface Column {
  header: string;
  kind: ColumnKind;
}

export interface SheetTable {
  /** The file name without `.csv`, fixed in English (`kpis`): a script finds it in any locale. */
  name: TableName;
  /** The sheet's name in the report's language (at most 31 characters, unique: ./sheet-names.ts). */
  title: string;
  columns: Column[];
  rows: CellValue[][];
  /** Per row, the kinds of its cells where they differ from their columns' (a count among scores). */
  kinds?: (ColumnKind[] | undefined)[];
}

export interface WorkbookFacts {
  /** The period's last day (`YYYY-MM-DD`): the workbook's created and modified time. */
  day: string;
  /** The workbook's author as its properties show it (the agency), or null. */
  author: string | null;
  /** The report's title for the workbook's properties. */
  title: string;
  /** The text around a number of percentage points as the page writes it (de `{before: '', after: ' Pp.'}`). */
  points: { before: string; after: string };
}

/** Every table a report can have, in the workbook's order. */
export const TABLE_NAMES = [
  'report',
  'kpis',
  'trend',
  'engines',
  'money_competitors',
  'losses',
  'recommendations_open',
  'recommendations_closed',
  'suspected_false_claims',
  'conflicts',
  'claims_per_engine',
  'what_changed',
] as const;
export type TableName = (typeof TABLE_NAMES)[number];

/** Soft hyphens of the page's headers help a narrow column break; a spreadsheet has no use for them. */
export const plain = (s: string) => s.replaceAll('\u00ad', '');

export interface Ctx {
  r: ReportModel;
  f: Formatters;
  lang: string;
}

export const head = (c: Ctx, key: string): string => {
  const s = plain(c.f.t(key as `page:${string}`));
  return s.charAt(0).toLocaleUpperCase(c.lang) + s.slice(1);
};
export const col = (c: Ctx, key: string, kind: ColumnKind): Column => ({ header: head(c, key), kind });

/** A text from the API as the page shows it (the client's name renamed), a missing one an empty cell. */
export const apiCell = (c: Ctx, s: string | null): string | null => (s === null ? null : c.f.api(s));

/** Why a section's table is empty though the section has data: read from the page's words. */
export function notReadNote(c: Ctx, what: string, endpoint: string, reason: string): string {
  return plain(
    `${c.f.t('page:drift.not_read', { what })} ${c.f.t('page:drift.not_read_text', { endpoint, reason })}`,
  );
}
