// The report's tables as one workbook, `report.xlsx` (docs/reports.md, "Spreadsheets"): a sheet per
// table, named in the report's language, its header row bold and frozen; numbers as numbers with a
// number format (scores one decimal, counts whole, shares of voice as percentages, changes signed,
// a change of a share in percentage points with the page's unit word, "−4,5 Pp.", never a "%" that
// reads as a relative change),
// days as dates, times as date-times (UTC), a missing value an empty cell (the "Report" sheet and
// the Note columns say why). An XLSX string cell is never a formula, so text needs no defusing here
// (./csv.ts does it for CSV); characters XML cannot carry are dropped so the file always opens.
// exceljs (README, "Dependencies and why") is loaded only when a workbook is asked for: it costs
// ~190 ms at import. Same tables, same bytes: the workbook's and its zip entries' times are the
// period's last day, never the clock.
import { sheetNames } from './sheet-names.js';
import type { CellValue, Column, ColumnKind, SheetTable, WorkbookFacts } from './table-shape.js';
import { withFileTimes } from './zip-dates.js';

/** Excel's number formats per kind; 14 (`mm-dd-yy`) is the built-in short date, shown in the reader's locale. */
const NUMBER_FORMATS: Partial<Record<ColumnKind, string>> = {
  number: '0.0',
  count: '0',
  percent: '0.0%',
  delta: '+0.0;-0.0;0.0',
  count_delta: '+0;-0;0',
  date: 'mm-dd-yy',
  instant: 'yyyy-mm-dd hh:mm',
};

// C0 controls other than tab, LF and CR, and the two non-characters, are not allowed in XML 1.0.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

const utcDate = (s: string): Date | string => {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
  return Number.isFinite(ms) ? new Date(ms) : s;
};

/** A cell's value as the workbook stores it. */
function cellOf(v: CellValue, kind: ColumnKind): string | number | Date | null {
  if (v === null) return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    // A share of voice in percent is stored as the fraction a percentage format shows; its change
    // stays in points, as the page and the CSV have it.
    return kind === 'percent' ? Number((v / 100).toPrecision(15)) : v;
  }
  if (kind === 'date' || kind === 'instant') return utcDate(v);
  return v.replace(NOT_XML, '');
}

/** A column's width in characters: its longest value, between 8 and 60. */
function widthOf(c: Column, rows: readonly CellValue[][], i: number): number {
  let w = c.header.length;
  for (const r of rows) {
    const v = r[i];
    w = Math.max(w, v === null || v === undefined ? 0 : typeof v === 'number' ? 8 : v.length);
  }
  return Math.min(60, Math.max(8, w + 2));
}

/** A literal in a number format: quoted, a quote dropped (Excel has no escape inside quotes). */
const literal = (s: string) => (s === '' ? '' : `"${s.replace(NOT_XML, '').replaceAll('"', '')}"`);

/** The number formats of a workbook: a change in percentage points carries the locale's unit. */
function numberFormats(points: WorkbookFacts['points']): Partial<Record<ColumnKind, string>> {
  const [b, a] = [literal(points.before), literal(points.after)];
  return { ...NUMBER_FORMATS, percent_delta: `+${b}0.0${a};-${b}0.0${a};${b}0.0${a}` };
}

/** The workbook's bytes. */
export async function tablesXlsx(tables: readonly SheetTable[], facts: WorkbookFacts): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const at = new Date(`${facts.day}T00:00:00Z`);
  const wb = new ExcelJS.Workbook();
  wb.creator = (facts.author ?? '').replace(NOT_XML, '');
  wb.lastModifiedBy = wb.creator;
  wb.title = facts.title.replace(NOT_XML, '');
  wb.created = at;
  wb.modified = at;
  const names = sheetNames(tables.map((t) => t.title));
  const formats = numberFormats(facts.points);
  tables.forEach((t, n) => {
    const ws = wb.addWorksheet(names[n], { views: [{ state: 'frozen', ySplit: 1 }] });
    ws.columns = t.columns.map((c, i) => ({
      header: c.header.replace(NOT_XML, ''),
      width: widthOf(c, t.rows, i),
      ...(formats[c.kind] ? { style: { numFmt: formats[c.kind] } } : {}),
    }));
    ws.getRow(1).font = { bold: true };
    t.rows.forEach((row, r) => {
      const kinds = t.kinds?.[r];
      const added = ws.addRow(t.columns.map((c, i) => cellOf(row[i] ?? null, kinds?.[i] ?? c.kind)));
      // A cell whose kind is not its column's (a count in the key figures) gets its own format.
      kinds?.forEach((k, i) => {
        const format = formats[k];
        if (format && k !== t.columns[i]?.kind) added.getCell(i + 1).numFmt = format;
      });
    });
  });
  return withFileTimes(new Uint8Array(await wb.xlsx.writeBuffer()), at);
}
