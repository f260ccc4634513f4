// One report table as CSV (docs/reports.md, "Spreadsheets"): RFC 4180 (CRLF line ends, a field with
// a comma, quote, CR or LF quoted, a quote doubled), UTF-8 with a byte-order mark, because Excel
// opens a CSV without one in the system's legacy code page and garbles "Verlässlichkeit"; every
// other reader (DuckDB, pandas, csv-parse) skips the mark. Headers are in the report's language;
// values are machine-readable whatever the locale: numbers with a dot, unrounded as report.json has
// them, days `YYYY-MM-DD`, times ISO UTC, a missing value an empty field (never 0).
//
// Formula injection (OWASP "CSV Injection"): a text field that begins with = + - @, a tab or a CR
// is a formula to Excel and LibreOffice (`=HYPERLINK(...)` from a competitor's name would be a
// live link). Such a field is prefixed with an apostrophe, which those programs show as text; a
// number is never text here, so -3.2 stays a number.
import type { CellValue, SheetTable } from './table-shape.js';

const BOM = '\uFEFF';
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell defused for spreadsheets: a leading formula character made literal. */
export function defused(s: string): string {
  return FORMULA_START.test(s) ? `'${s}` : s;
}

function field(v: CellValue): string {
  if (v === null) return '';
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : defused(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The table as CSV text, header row first, each row ended by CRLF. */
export function tableCsv(t: SheetTable): string {
  const lines = [t.columns.map((c) => field(c.header))];
  for (const row of t.rows) lines.push(t.columns.map((_, i) => field(row[i] ?? null)));
  return `${BOM}${lines.map((l) => `${l.join(',')}\r\n`).join('')}`;
}
