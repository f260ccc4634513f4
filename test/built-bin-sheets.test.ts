// Spreadsheets through the BUILT visync (test/helpers/built-bin.ts), as a user runs it: `visync report
// --format html,csv,xlsx` of two synced nights with `reports.locale: de-DE`, into a folder and into
// the store (its manifest lists every file); the workbook read back with exceljs, the CSV with
// DuckDB's reader. Then `visync report send` with `reports.attach: [pdf, xlsx]` to a local SMTP
// server (test/helpers/mailbox.ts): the PDF (Chromium) and the workbook attached, the body naming both.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { TABLE_NAMES } from '../src/report/tables/report-tables.js';
import { type BuiltVisync, builtVisync, NODE22 } from './helpers/built-bin.js';
import { type CliRun, startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { mailbox } from './helpers/mailbox.js';
import { reportDir, twoNightsOnce } from './helpers/report-nights.js';
import { TODAY } from './helpers/watch-nights.js';

let built: BuiltVisync;
beforeAll(() => {
  built = builtVisync();
}, 60_000);

const nights = twoNightsOnce();

function visync(dir: string, args: string[]): Promise<CliRun> {
  return startProcess(NODE22, [built.bin, '--config', join(dir, 'visync.yaml'), ...args], {
    cwd: dir,
    guardMs: 60_000,
  }).exited;
}

/** A copy of the nights with the top-level `reports` block set. */
function withReports(reports: Record<string, unknown>) {
  const copy = nights.copy();
  const doc = parse(readFileSync(copy.config, 'utf8')) as Record<string, unknown>;
  doc.reports = reports;
  writeFileSync(copy.config, stringify(doc));
  return copy;
}

describe('the built visync writes spreadsheets', () => {
  it('report --format html,csv,xlsx: a German workbook and CSVs a program reads back', async () => {
    const { dir, brands } = withReports({ locale: 'de-DE' });
    const out = h.tempDir();
    const run = await visync(dir, [
      'report',
      '--period',
      '2026-11',
      '--format',
      'html,csv,xlsx',
      '--out',
      out,
    ]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const folder = reportDir(out, brands[0] as string, '2026-11');
    expect(readdirSync(folder).sort()).toEqual(['report.html', 'report.xlsx', 'tables']);
    expect(readdirSync(join(folder, 'tables')).sort()).toEqual(TABLE_NAMES.map((t) => `${t}.csv`).sort());

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(readFileSync(join(folder, 'report.xlsx')) as unknown as ArrayBuffer);
    expect(wb.worksheets.map((w) => w.name)).toEqual([
      'Bericht',
      'Kennzahlen',
      'Verlauf',
      'KI-Suchmaschinen',
      'Wer Ihre kaufrelevanten…',
      'Verlorene Prompts',
      'Offen, nach Priorität',
      'Im Zeitraum erledigt oder…',
      'Vermutlich falsche Aussagen',
      'Widersprüche zwischen…',
      'Aussagen je KI-Suchmaschine',
      'Was sich geändert hat',
    ]);
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
    expect(trend.rowCount).toBe(11); // November to date: the nights end on the 10th
    expect(trend.getCell('A2').type).toBe(ExcelJS.ValueType.Date);
    expect((trend.getCell('A2').value as Date).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    const score = trend.getCell('B2');
    expect(score.type).toBe(ExcelJS.ValueType.Number);
    expect(score.numFmt).toBe('0.0');
    expect(trend.getCell('C2').numFmt).toBe('0.0%');
    // A change of the share of voice reads in percentage points, the page's "Pp.", not a "%".
    const kpis = wb.getWorksheet('Kennzahlen')!;
    const sov = kpis.getRows(2, 8)!.find((x) => x.getCell(1).value === 'Share of Voice (Mittel)')!;
    // The same number of points as the CSV's change (not its hundredth, which "%" would show).
    const csvRow = readFileSync(join(folder, 'tables', 'kpis.csv'), 'utf8')
      .split('\r\n')
      .find((l) => l.startsWith('Share of Voice (Mittel),'))!;
    const points = Number(csvRow.split(',')[3]);
    expect(Math.abs(points)).toBeGreaterThan(1);
    expect([sov.getCell(4).value, sov.getCell(4).numFmt]).toEqual([
      points,
      '+0.0" Pp.";-0.0" Pp.";0.0" Pp."',
    ]);
    const about = readFileSync(join(folder, 'tables', 'report.csv'), 'utf8');
    expect(about).toContain(
      'Hinweis,"Eine Veränderung des Share of Voice steht in Prozentpunkten (-4.5 bedeutet \u22124,5 Pp.)."',
    );

    // The same table as CSV: header in German, the same numbers with a dot.
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const rows = (
        await c.runAndReadAll(
          `SELECT * FROM read_csv('${join(folder, 'tables', 'trend.csv')}', header = true, hive_partitioning = false) ORDER BY Tag`,
        )
      ).getRowObjectsJson();
      expect(rows).toHaveLength(10);
      expect(Object.keys(rows[0] as object)).toEqual([
        'Tag',
        'Gesamtwert',
        'Share of Voice',
        'Vergleichstag',
        'Gesamtwert zuvor',
        'Share of Voice zuvor',
      ]);
      expect(rows[0]?.Tag).toBe('2026-11-01');
      expect(rows[0]?.Gesamtwert).toBe(score.value);
    } finally {
      c.closeSync();
      db.closeSync();
    }

    // Same data, same bytes: made again, the workbook and the CSVs are unchanged.
    const again = h.tempDir();
    const second = await visync(dir, [
      'report',
      '--period',
      '2026-11',
      '--format',
      'csv,xlsx',
      '--out',
      again,
    ]);
    expect(second.code).toBe(0);
    const folder2 = reportDir(again, brands[0] as string, '2026-11');
    expect(readFileSync(join(folder2, 'report.xlsx')).equals(readFileSync(join(folder, 'report.xlsx')))).toBe(
      true,
    );
    expect(readFileSync(join(folder2, 'tables', 'kpis.csv'), 'utf8')).toBe(
      readFileSync(join(folder, 'tables', 'kpis.csv'), 'utf8'),
    );
    // Made again as HTML only: the spreadsheets and their folder are gone, one version in the folder.
    const html = await visync(dir, ['report', '--period', '2026-11', '--format', 'html', '--out', out]);
    expect(html.code).toBe(0);
    expect(readdirSync(folder)).toEqual(['report.html']);
  });

  it('into the store: manifest.json lists the workbook and every CSV with their SHA-256', async () => {
    const { dir, brands } = withReports({ locale: 'de-DE' });
    const run = await visync(dir, ['report', '--period', '2026-11', '--format', 'json,csv,xlsx']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const folder = reportDir(join(dir, 'reports'), brands[0] as string, '2026-11');
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as {
      files: { key: string; sha256: string }[];
    };
    const names = manifest.files.map((f) => f.key.slice(f.key.indexOf('period=2026-11/') + 15)).sort();
    expect(names).toEqual(
      ['report.json', 'report.xlsx', ...TABLE_NAMES.map((t) => `tables/${t}.csv`)].sort(),
    );
    // Made again as JSON only: the spreadsheets are removed, the folder holds one version.
    const json = await visync(dir, ['report', '--period', '2026-11', '--format', 'json']);
    expect(json.code).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['manifest.json', 'report.json']);
  });

  it('report send with reports.attach [pdf, xlsx]: both attached, the workbook the one in the manifest', async () => {
    const box = await mailbox();
    const { dir, brands } = withReports({
      locale: 'de-DE',
      recipients: ['cmo@client.example'],
      formats: ['html', 'json'],
      attach: ['pdf', 'xlsx'],
      smtp: { host: '127.0.0.1', port: box.port, from: 'reports@agency.example', allowInsecure: true },
    });
    const brand = brands[0] as string;
    // Without --format: reports.formats and what the mail attaches (pdf, xlsx).
    const made = await visync(dir, ['report', '--period', '2026-11', '--brand', brand]);
    expect([made.code, made.stderr]).toEqual([0, '']);
    const folder = reportDir(join(dir, 'reports'), brand, '2026-11');
    expect(readdirSync(folder).sort()).toEqual([
      'manifest.json',
      'report.html',
      'report.json',
      'report.pdf',
      'report.xlsx',
    ]);
    const sent = await visync(dir, ['report', 'send', '--period', '2026-11', '--brand', brand]);
    expect([sent.code, sent.stderr]).toEqual([0, '']);
    expect(box.mails).toHaveLength(1);
    const mail = box.mails[0]!;
    const files = mail.attachments.map((a) => [a.filename, a.contentType]);
    expect(files).toEqual([
      [expect.stringMatching(/-2026-11-to-date-2026-11-\d\d\.pdf$/), 'application/pdf'],
      [
        expect.stringMatching(/-2026-11-to-date-2026-11-\d\d\.xlsx$/),
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      ],
    ]);
    // The body names both files, in German.
    expect(mail.text).toContain(`(${mail.attachments.map((a) => a.filename).join(', ')})`);
    const xlsx = mail.attachments[1]!.content;
    expect(xlsx.equals(readFileSync(join(folder, 'report.xlsx')))).toBe(true);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(xlsx as unknown as ArrayBuffer);
    expect(wb.worksheets[1]?.name).toBe('Kennzahlen');
  });

  it('hostile names from the API: a formula is text in the CSV and the workbook, <script> stays a string', async () => {
    const FORMULA = '=HYPERLINK("http://evil.example/x","Click")';
    const SCRIPT = '<script>alert(1)</script> is cheaper';
    const dir = h.tempDir();
    const accounts = [{ name: 'acme', workspaces: 1 }];
    const top = { top: { reports: { locale: 'de-DE' } } };
    const first = await h.sim({ seed: 7, accounts, today: TODAY });
    const one = await h.runOnceCli(first, dir, [], top);
    expect(one.code, one.err.join('\n')).toBe(0);
    const changes = [
      { kind: 'competitor-win' as const, account: 'acme', workspace: 0, competitor: FORMULA },
      { kind: 'false-claim' as const, account: 'acme', workspace: 0, engine: 'chatgpt', claim: SCRIPT },
    ];
    const second = await h.sim({ seed: 7, accounts, today: TODAY, changes });
    const config = h.configFile(second, dir, top).path;
    const two = await h.visyncCli(config, ['run', '--once', '--log-level', 'silent']);
    expect(two.code, two.err.join('\n')).toBe(0);
    const out = h.tempDir();
    const run = await startProcess(
      NODE22,
      [built.bin, '--config', config, 'report', '--format', 'csv,xlsx', '--out', out],
      {
        cwd: dir,
        guardMs: 60_000,
      },
    ).exited;
    expect([run.code, run.stderr]).toEqual([0, '']);
    const workbook = h.listFiles(out).find((f) => f.endsWith('/report.xlsx')) as string;
    const folder = join(out, workbook, '..');
    const csv = readFileSync(join(folder, 'tables', 'losses.csv'), 'utf8');
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example/x"",""Click"")"`);
    expect(csv).not.toMatch(/(^|,)"?=HYPERLINK/m);
    expect(readFileSync(join(folder, 'tables', 'suspected_false_claims.csv'), 'utf8')).toContain(SCRIPT);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(readFileSync(join(folder, 'report.xlsx')) as unknown as ArrayBuffer);
    const cells = wb.worksheets.flatMap((w) =>
      w.getSheetValues().flatMap((row) => (Array.isArray(row) ? row : [])),
    );
    expect(cells).toContain(FORMULA);
    expect(cells).toContain(SCRIPT);
    // No cell of any sheet is a formula.
    for (const w of wb.worksheets)
      w.eachRow((row) => row.eachCell((cell) => expect(cell.type).not.toBe(ExcelJS.ValueType.Formula)));
  });
});
