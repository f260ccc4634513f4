// The white label beyond the look: which sections show and in which order, numbers and dates in the
// workspace's locale and time zone, a contact line, a report that never names the platform; and a
// PDF that fails for one workspace fails that workspace only.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../src/report/model/report-shape.js';
import { formattersOf } from '../src/report/render/format.js';
import { PdfError } from '../src/report/render/pdf.js';
import * as h from './helpers/harness.js';
import {
  openInChromium,
  pdfReports,
  reportDir,
  reportNovemberWith,
  twoNights,
} from './helpers/report-nights.js';

const CONTACT = 'Questions? Anna Schmidt, +49 30 1234567, anna@northwind.example';

describe('visync report per workspace settings', () => {
  it('shows only the listed sections in their order, in de-DE with Berlin time, a contact line and no platform name', async () => {
    const { out, first, second } = await reportNovemberWith((first) => ({
      account: {
        workspaces: {
          [first]: {
            sections: ['kpis', 'cover'],
            locale: 'de-DE',
            timeZone: 'Europe/Berlin',
            contact: CONTACT,
            hidePlatformName: true,
          },
        },
      },
    }));
    const folder = reportDir(out, first, '2026-11');
    const json = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as Report;
    const page = readFileSync(join(folder, 'report.html'), 'utf8');

    // report.json keeps every section and stays locale-free: ISO time, plain numbers.
    for (const key of [
      'kpis',
      'trend',
      'engines',
      'buyer_intent',
      'recommendations',
      'reputation',
      'what_changed',
    ])
      expect(json).toHaveProperty(key);
    expect(json.cover.data_as_of).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(json.period.from).toBe('2026-11-01');

    const c = await openInChromium(join(folder, 'report.html'));
    try {
      // The page's blocks in order: the key figures, then the cover with the summary under it
      // (src/report/summary/); no other section.
      const blocks = await c.page.$$eval('main > *', (els) =>
        els.map((e) => e.querySelector('h2')?.textContent ?? e.className ?? e.tagName),
      );
      expect(blocks).toEqual(['Kennzahlen', 'cover', 'Zusammenfassung', '']);
      expect(await c.page.$$eval('h2', (els) => els.map((e) => e.textContent))).toEqual([
        'Kennzahlen',
        'Zusammenfassung',
      ]);

      // Numbers with a decimal comma at one decimal (53.4 -> 53,4; 53 -> 53,0; 38.192 -> 38,2), the
      // share of voice with its unit (35,0 %).
      const kpis = [
        [
          `Gesamtwert am ${new Intl.DateTimeFormat('de-DE', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${json.period_status.end}T00:00:00Z`))}`,
          json.kpis.overall_score_end.value,
        ],
        ['Gesamtwert (Mittel des Zeitraums)', json.kpis.overall_score_mean.value],
        ['Share of Voice (Mittel)', json.kpis.share_of_voice.value],
        ['Sichtbarkeit bei Kauf-Prompts', json.kpis.money_visibility.value],
      ] as const;
      const shown = await c.page.$$eval('.card', (els) =>
        Object.fromEntries(
          els.map((e) => [e.querySelector('.label')?.textContent, e.querySelector('.value')?.textContent]),
        ),
      );
      const decimals = kpis.filter(([, v]) => v !== null && !Number.isInteger(v));
      expect(decimals.length).toBeGreaterThan(0);
      for (const [label, value] of kpis)
        expect(shown[label]).toBe(
          value === null
            ? 'k. A.'
            : `${(Math.round(value * 10) / 10).toFixed(1).replace('.', ',')}${label.startsWith('Share') ? '\u00a0%' : ''}`,
        );

      // The period named once as de-DE says it; the day of the data in Berlin (CET +1 h, or CEST +2 h
      // in summer), no raw timestamp, no workspace id or account.
      const cover = (await c.page.textContent('header.cover')) ?? '';
      expect(cover).toContain(
        'KI-Sichtbarkeitsbericht, 1.–10. November 2026, Monat bis heute. Verglichen mit Oktober 2026.',
      );
      const asOf = Date.parse(json.cover.data_as_of as string);
      const berlin = (hours: number) => {
        const t = new Date(asOf + hours * 3_600_000).toISOString();
        return `${t.slice(8, 10)}.${t.slice(5, 7)}.${t.slice(0, 4)}`;
      };
      expect([berlin(1), berlin(2)].some((t) => cover.includes(`Datenstand: ${t}.`))).toBe(true);
      expect(cover).not.toContain(first);
      expect(cover).not.toContain('acme');

      expect(await c.page.$$eval('.cover .contact', (els) => els.map((e) => e.textContent))).toEqual([
        CONTACT,
      ]);
      const body = (await c.page.textContent('body')) ?? '';
      expect(body).not.toMatch(/visibility-sync|visync|Prepared by/i);
    } finally {
      await c.browser.close();
    }
    expect(page).not.toMatch(/visibility-sync|visync/i);
    expect(json.cover.agency_name).toBeNull();

    // The PDF is that page: the key figures before the cover, no platform name.
    const text = execFileSync('pdftotext', ['-layout', join(folder, 'report.pdf'), '-'], {
      encoding: 'utf8',
    });
    expect(text.indexOf('Kennzahlen')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('Kennzahlen')).toBeLessThan(text.indexOf(CONTACT));
    expect(text).toMatch(/Seite 1 von \d+/);
    expect(text).not.toMatch(/visibility-sync|visync|Trend|Reputation/i);

    // The other workspace keeps the defaults: every section, the platform named, ISO dates.
    const other = readFileSync(join(reportDir(out, second, '2026-11'), 'report.html'), 'utf8');
    expect(other).toContain('Prepared by visibility-sync.');
    expect(other).toContain(
      'AI visibility report, 1\u2009–\u200910 November 2026, month to date. Compared with October 2026.',
    );
    expect(other).not.toContain(CONTACT);
  });
});

describe('visync report PDF failures', () => {
  it('a PDF that fails for one workspace fails that workspace only, in one line naming it', async () => {
    const dir = h.tempDir();
    const { last } = await twoNights(dir);
    const [first, second] = last.accounts[0]!.workspaceIds as [string, string];
    const out = h.tempDir();
    const r = await pdfReports(dir, out, async (_html, brandId) => {
      if (brandId === first) throw new PdfError('Chromium did not print the PDF within 60 s');
      return new TextEncoder().encode('%PDF-1.7\n');
    });
    expect(r.made.map((m) => m.brandId)).toEqual([second]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]?.line).toContain(`account acme, workspace ${first}`);
    expect(r.problems[0]?.line).toContain('Chromium did not print the PDF within 60 s');
    const period = r.made[0]?.period as string;
    expect(existsSync(join(reportDir(out, second, period), 'report.pdf'))).toBe(true);
    expect(existsSync(reportDir(out, first, period))).toBe(false);
  });
});

describe('report number and date formats', () => {
  it("keep the API's precision in the locale's digits, and print the data as it is without a locale (times in UTC)", () => {
    const de = formattersOf({ locale: 'de-DE', timeZone: 'Europe/Berlin' });
    expect([53.4, 53, 38.192, -2.25, 1234.5, 0].map(de.number)).toEqual([
      '53,4',
      '53',
      '38,192',
      '-2,25',
      '1234,5',
      '0',
    ]);
    expect(de.day('2026-11-01')).toBe('01.11.2026');
    expect(de.instant('2026-07-10T03:04:05Z')).toBe('10.07.2026, 05:04 MESZ');
    expect(de.when('2026-01-10T03:04:05.123Z')).toBe('10.01.2026, 04:04 MEZ');
    const plain = formattersOf({ locale: null, timeZone: null });
    expect([53.4, 53, 38.192, 1234.5].map(plain.number)).toEqual(['53.4', '53', '38.192', '1234.5']);
    expect(plain.day('2026-11-01')).toBe('2026-11-01');
    // No raw timestamp on a page: a time without a zone reads in UTC, in ISO order.
    expect(plain.instant('2026-11-10T03:04:05.123Z')).toBe('2026-11-10 03:04 UTC');
    // A zone alone moves the time and names the zone.
    expect(formattersOf({ locale: null, timeZone: 'Europe/Berlin' }).instant('2026-11-10T03:04:05Z')).toBe(
      '2026-11-10 04:04 GMT+1',
    );
  });
});
