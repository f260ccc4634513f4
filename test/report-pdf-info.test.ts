// The PDF's document information as a client's PDF reader shows it (File > Properties), read back
// with poppler's pdfinfo from PDFs the real Chromium printed through `visync report`: the agency is
// the Author (and the Creator), the report's title the Title, never Chromium's "HeadlessChrome"
// user agent (src/report/render/pdf-info.ts). Producer (Skia/PDF) may stay.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfSession } from '../src/report/render/pdf.js';
import * as h from './helpers/harness.js';
import { reportDir, reportNovemberWith, twoNightsOnce } from './helpers/report-nights.js';

const nights = twoNightsOnce();

function pdfinfo(file: string): Record<string, string> {
  const lines = execFileSync('pdfinfo', [file], { encoding: 'utf8' }).split('\n');
  return Object.fromEntries(
    lines.map((l) => l.split(/:\s+/, 2) as [string, string]).filter((p) => p[1] !== undefined),
  );
}

const AGENCY = 'Northwind & Söhne <Digital>';

describe('PDF document information', () => {
  it("names the agency as Author and the report's title as Title, for each report and the overview", async () => {
    const { out, first } = await reportNovemberWith(
      () => ({ top: { agency: AGENCY, locale: 'de-DE' } }),
      () => nights.copy(),
    );
    const report = pdfinfo(join(reportDir(out, first, '2026-11'), 'report.pdf'));
    expect(report.Author).toBe(AGENCY);
    expect(report.Creator).toBe(AGENCY);
    // The nights end on 10 November: a report of the month to date.
    expect(report.Title).toMatch(/^\S.* – KI-Sichtbarkeitsbericht, 1\.–10\. November 2026, Monat bis heute$/);
    expect(report.Producer).toMatch(/^Skia\/PDF/);
    // Still one PDF a reader opens whole: every page, its tags and outline.
    expect(report.Tagged).toBe('yes');
    expect(Number(report.Pages)).toBeGreaterThan(1);
    const overview = pdfinfo(join(out, 'account=acme', 'period=2026-11', 'overview.pdf'));
    expect(overview.Author).toBe(AGENCY);
    expect(overview.Title).toBe(
      `${AGENCY} – Überblick KI-Sichtbarkeit – 1.–10. November 2026, Monat bis heute`,
    );
    for (const info of [report, overview]) expect(JSON.stringify(info)).not.toContain('HeadlessChrome');
  }, 240_000);

  describe('a page that names no agency (hidePlatformName)', () => {
    let session: PdfSession;
    beforeAll(async () => {
      session = await PdfSession.open('/usr/bin/chromium');
    });
    afterAll(() => session?.close());

    it('has no Author and no Creator naming Chromium', async () => {
      const file = join(h.tempDir(), 'plain.pdf');
      const pdf = await session.render(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Acme – AI visibility report, November 2026</title></head><body><p>Hello</p></body></html>',
        { pageSize: 'A4' },
      );
      writeFileSync(file, pdf);
      const info = pdfinfo(file);
      expect(info.Title).toBe('Acme – AI visibility report, November 2026');
      expect(info.Author).toBeUndefined();
      expect(info.Creator).toBeUndefined();
    }, 60_000);
  });
});
