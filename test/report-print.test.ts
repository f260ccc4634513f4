// The PDF as a client prints it, read back with poppler: the demo's 24 workspaces (seed 42, two nights
// 30 days apart, as scripts/demo.ts syncs them) in en-US and de-DE, printed in one browser. No page
// but the last under a third full, the footer once on every page, never a page holding only the
// closing line; and an agency colour too light for text warns at load and is darkened in the page.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/read-config.js';
import type { AccountConfig } from '../src/config/schema.js';
import { translator } from '../src/report/i18n/translate.js';
import { makeAccountReports } from '../src/report/make.js';
import type { Report } from '../src/report/model/report-shape.js';
import { renderHtml } from '../src/report/render/html.js';
import { PdfSession } from '../src/report/render/pdf.js';
import { defaultReportSettings, reportSettingsFor } from '../src/report/settings.js';
import { DEFAULT_STYLE, pdfFooter, styleOf } from '../src/report/style.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { ratioOnWhite, textColourOnWhite } from '../src/util/contrast.js';
import * as h from './helpers/harness.js';
import { syncNight } from './helpers/nights.js';
import { type PdfPage, pdfPages } from './helpers/pdf-pages.js';
import { openInChromium } from './helpers/report-nights.js';

const SHOTS = new URL('../test-results/', import.meta.url).pathname;
const FOOTER = 'Northwind Digital \u00b7 vertraulich / confidential';
const LOCALES = ['en-US', 'de-DE'] as const;
const FAST = { requests: 100_000, windowMs: 60_000 };

let session: PdfSession;
let reports: Report[] = [];
/** locale -> the 24 PDFs read back, in workspace order. */
const printed = new Map<string, PdfPage[][]>();
/** One German PDF, kept for a person to look at (test-results/report-print-de-*.png). */
let germanPdf: Uint8Array | undefined;

beforeAll(async () => {
  const dir = h.tempDir();
  for (const night of ['2026-10-28', '2026-11-27']) {
    // The demo's data without its compressed rate window: the limit is not what is tested here.
    const spec = { seed: 42, accounts: [{ name: 'demo', workspaces: 24 }], limit: FAST };
    const run = await syncNight(dir, spec, night, {
      config: { extract: { visibilityDays: 30 }, accounts: { demo: { requestsPerMinute: FAST.requests } } },
    });
    expect(run.status).toBe('succeeded');
  }
  const bodies: Report[] = [];
  await makeAccountReports({
    store: new FsObjectStore(dir),
    target: {
      async write(_a, _b, _p, files) {
        for (const f of files) bodies.push(JSON.parse(String(f.body)) as Report);
        return '';
      },
      // The overview's pages are checked in test/report-overview.test.ts.
      writeOverview: async () => '',
      writeBook: async () => '',
      read: async () => undefined,
      stated: async () => undefined,
    },
    account: 'demo',
    brands: [],
    formats: ['json'],
    styleFor: () => DEFAULT_STYLE,
    now: Date.now(),
  });
  reports = bodies;
  session = await PdfSession.open();
  for (const locale of LOCALES) {
    const style = styleOf({
      ...defaultReportSettings(),
      agency: 'Northwind Digital',
      footer: FOOTER,
      locale,
    });
    printed.set(
      locale,
      await Promise.all(
        reports.map(async (r, i) => {
          const pdf = await session.render(await renderHtml(r, style), {
            pageSize: 'A4',
            ...pdfFooter(style),
            locale,
          });
          if (locale === 'de-DE' && i === 0) germanPdf = pdf;
          return pdfPages(pdf);
        }),
      ),
    );
  }
}, 600_000);

afterAll(async () => {
  await session?.close();
});

describe('report PDF pages', () => {
  it('prints the 24 workspaces of the demo in two locales', () => {
    expect(reports).toHaveLength(24);
    for (const locale of LOCALES) expect(printed.get(locale)).toHaveLength(24);
    mkdirSync(SHOTS, { recursive: true });
    const file = join(h.tempDir(), 'report.pdf');
    writeFileSync(file, germanPdf as Uint8Array);
    execFileSync('pdftoppm', ['-png', '-r', '50', file, join(SHOTS, 'report-print-de')]);
  });

  it.each(LOCALES)('%s: no page but the last is under a third full', (locale) => {
    const thin: string[] = [];
    for (const [i, pages] of (printed.get(locale) ?? []).entries())
      pages.slice(0, -1).forEach((p, n) => {
        if (p.fill < 1 / 3)
          thin.push(
            `${reports[i]?.brand_id} page ${n + 1} of ${pages.length}: ${Math.round(p.fill * 100)} %`,
          );
      });
    expect(thin).toEqual([]);
  });

  it.each(LOCALES)('%s: the footer once on every page, and no page holds only the closing line', (locale) => {
    const closing = translator(locale).t('page:footer.prepared', { agency: 'Northwind Digital' });
    for (const pages of printed.get(locale) ?? [])
      pages.forEach((p, n) => {
        expect(p.text.split(FOOTER).length - 1, `page ${n + 1}`).toBe(1);
        expect(p.footer).toContain(
          translator(locale).t('pdf:footer.page', { page: n + 1, pages: pages.length }),
        );
        // The closing line rides in the running footer, once a page; never a page of its own.
        expect(p.footer.split(closing).length - 1).toBe(1);
        expect(p.bodyLines.length).toBeGreaterThan(0);
        expect(
          p.bodyLines.every((l) => l.trim() === closing),
          `page ${n + 1}: ${p.bodyLines.join(' | ')}`,
        ).toBe(false);
      });
  });
});

describe('agency colours', () => {
  it('a colour too light for text warns at load, naming the key and the colour; the page writes text in a darker shade that reaches 4.5:1', async () => {
    const warnings: string[] = [];
    const yaml = `accounts:
  - name: acme
    apiKey: \${ACME_API_KEY}
    baseUrl: https://visibility.example/api/v1
    reports:
      workspaces:
        ws_1: { colors: { primary: '#7fb2e5' } }
sinks:
  fs: {}
reports:
  agency: Sunny Agency
  colors: { primary: '#1f4e79', accent: '#ffcc00' }
`;
    const config = parseConfig(yaml, {
      source: 'visync.yaml',
      env: { ACME_API_KEY: 'k-acme-0123456789' },
      onWarning: (w) => warnings.push(w),
    });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      /^visync\.yaml: reports\.colors\.accent #ffcc00 has a contrast of 1\.51:1 on white/,
    );
    expect(warnings[1]).toMatch(
      /^visync\.yaml: accounts\.0\.reports\.workspaces\.ws_1\.colors\.primary #7fb2e5 /,
    );
    // The dark blue passes and is not named.
    expect(warnings.join('\n')).not.toContain('#1f4e79');

    const style = styleOf(reportSettingsFor(config, config.accounts[0] as AccountConfig));
    const file = join(h.tempDir(), 'report.html');
    writeFileSync(file, await renderHtml(reports[0] as Report, style));
    const c = await openInChromium(file);
    try {
      const colours = await c.page.$$eval('h1, h2, .agency', (els) =>
        els.map((e) => [e.tagName, getComputedStyle(e).color]),
      );
      const hex = (rgb: string) =>
        `#${(rgb.match(/\d+/g) ?? [])
          .slice(0, 3)
          .map((n) => Number(n).toString(16).padStart(2, '0'))
          .join('')}`;
      const agency = colours.find(([tag]) => tag === 'P')?.[1] as string;
      // The accent's text is a darker yellow-brown: same hue, readable.
      expect(hex(agency)).not.toBe('#ffcc00');
      expect(hex(agency)).toMatch(/^#[0-9a-f]{6}$/);
      for (const [, colour] of colours)
        expect(ratioOnWhite(hex(colour as string))).toBeGreaterThanOrEqual(4.5);
      // The accent's fill (the cover's bar) keeps the agency's own colour.
      const bar = await c.page.$eval('header.cover', (e) => getComputedStyle(e).borderLeftColor);
      expect(hex(bar)).toBe('#ffcc00');
    } finally {
      await c.browser.close();
    }
  });
});

describe('text colour on white', () => {
  const hue = (c: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16) / 255) as [
      number,
      number,
      number,
    ];
    const max = Math.max(r, g, b);
    const d = max - Math.min(r, g, b);
    const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    return (h * 60 + 360) % 360;
  };
  it('keeps a colour that reaches 4.5:1 and darkens one that does not, keeping its hue, the same every time', () => {
    expect(textColourOnWhite('#1F4E79')).toBe('#1f4e79');
    for (const light of ['#ffcc00', '#7fb2e5', '#00ff00', '#ff69b4', '#cccccc']) {
      const text = textColourOnWhite(light);
      expect(ratioOnWhite(text), light).toBeGreaterThanOrEqual(4.5);
      // The lightest such shade: one step lighter would fail (4.5 is reached, not overshot by far).
      expect(ratioOnWhite(text), light).toBeLessThan(5.2);
      if (light !== '#cccccc') expect(Math.abs(hue(text) - hue(light)), light).toBeLessThan(3);
      expect(textColourOnWhite(light)).toBe(text);
    }
  });
});
