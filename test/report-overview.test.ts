// The agency overview (src/report/overview/): per account and period, overview.html beside the
// workspaces' reports, one row per workspace with a link that resolves from the overview's folder,
// largest drop first, missing figures said to be missing; overview.pdf through the built bin, its
// links where the page's go (read back with poppler), its headers unbroken, two clients of one
// name told apart, the period named in the Gregorian calendar whatever the locale's own.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { translator } from '../src/report/i18n/translate.js';
import type { Report } from '../src/report/model/report-shape.js';
import { renderOverview } from '../src/report/overview/page.js';
import { overviewRows, portfolioTrend, reportHref } from '../src/report/overview/rows.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { headlineOf } from '../src/report/summary/headline.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { pdfLinks } from './helpers/pdf-pages.js';
import { NIGHTS, reportDir, twoNights } from './helpers/report-nights.js';
import { PERIOD, PREVIOUS, report } from './helpers/report-workspace.js';
import { chromiumBrowser } from './helpers/shared-chromium.js';

const WORKSPACES = 3;

describe('agency overview', () => {
  it('lists every workspace once, largest drop first, each link opening its report (headless Chromium)', async () => {
    const { config, last } = await twoNights(h.tempDir(), NIGHTS, [], [WORKSPACES, WORKSPACES]);
    const ids = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds;
    const out = h.tempDir();
    const r = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-11',
      '--format',
      'html,json',
      '--out',
      out,
    ]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const file = join(out, 'account=acme', 'period=2026-11', 'overview.html');
    expect(r.out).toContain(`acme overview 2026-11: ${file}`);
    expect(r.out).toHaveLength(WORKSPACES + 1);

    const browser = await chromiumBrowser(); // the run's shared one; close() ends only this connection
    try {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(pathToFileURL(file).href);
      const rows = page.locator('table.clients tbody tr');
      expect(await rows.count()).toBe(WORKSPACES);
      const hrefs = await page
        .locator('table.clients a')
        .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
      expect(new Set(hrefs).size).toBe(WORKSPACES);
      // Each link, as the browser resolves it from the overview's folder, is a report written.
      const opened: { client: string; delta: number | null }[] = [];
      for (const href of hrefs) {
        const path = fileURLToPath(href);
        expect(existsSync(path), path).toBe(true);
        const json = JSON.parse(readFileSync(join(path, '..', 'report.json'), 'utf8')) as Report;
        expect(ids).toContain(json.brand_id);
        const target = await context.newPage();
        await target.goto(href);
        expect(await target.locator('h1').textContent()).toBe(json.cover.client_name);
        await target.close();
        // The headline change (src/report/summary/headline.ts): the period mean's, as its first card.
        opened.push({ client: json.cover.client_name ?? '', delta: headlineOf(json).delta });
      }
      // The links in page order: largest drop first.
      const deltas = opened.map((o) => o.delta ?? Number.POSITIVE_INFINITY);
      expect(deltas).toEqual([...deltas].sort((a, b) => a - b));
      const names = (await page.locator('table.clients tbody tr td:first-child').allTextContents()).map((s) =>
        s.trim(),
      );
      expect(names).toEqual(opened.map((o) => o.client));
      // The portfolio trend is drawn, and the page fetched nothing.
      expect(await page.locator('.chart svg').count()).toBe(1);
      await page.screenshot({ path: join(h.tempDir(), 'overview.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 240_000);

  it('says a missing figure is missing, a workspace without a report has no link, and sorts by drop', async () => {
    const drop = report({ scores: [50, 50, 50, 40] });
    const rise = report({ scores: [50, 50, 50, 60] });
    const first = report({}, { scores: [null, null, null, null] });
    const rows = overviewRows(
      [
        { brandId: 'up', report: rise, href: reportHref('up', PERIOD.label, 'html') },
        { brandId: 'gone', report: undefined, href: reportHref('gone', PERIOD.label, 'html') },
        { brandId: 'new', report: first, href: reportHref('new', PERIOD.label, 'html') },
        { brandId: 'down/1', report: drop, href: reportHref('down/1', PERIOD.label, 'html') },
      ],
      new Map([['down/1', { score_drop: 1, false_claim_new: 2 }]]),
    );
    expect(rows.map((r) => r.brandId)).toEqual(['down/1', 'up', 'new', 'gone']);
    // A `%` of the stored folder name is escaped once more in the link.
    expect(rows[0]?.href).toBe('../brand%3Ddown%252F1/period%3D2026-10-05_2026-10-08/report.html');
    expect(rows[3]).toMatchObject({ reported: false, score: null, delta: null, href: null });
    const page = await renderOverview({
      period: PERIOD,
      previous: PREVIOUS,
      rows,
      trend: portfolioTrend([drop, rise, first]),
      style: DEFAULT_STYLE,
    });
    const text = page.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('1 score drop, 2 new false claims');
    expect(text).toContain('not comparable');
    expect(text).toContain('no report for this period');
    expect(text).toContain('missing');
    expect(text).not.toMatch(/\bNaN\b|undefined|null/);
    const de = await renderOverview({
      period: PERIOD,
      previous: PREVIOUS,
      rows,
      trend: [],
      style: { ...DEFAULT_STYLE, locale: 'de-DE' },
    });
    expect(de).toContain('<html lang="de-DE">');
    expect(de).toContain('kein Bericht für diesen Zeitraum');
    expect(de).toContain('Kein Kunde hat in diesem Zeitraum einen Wert');
    expect(de).not.toContain('<svg');
  });

  it('tells two clients of one name apart: by domain where that differs, else by number, in id order', async () => {
    const named = (name: string | null, domain: string | null) => {
      const r = report({ scores: [50, 50, 50, 45] });
      return { ...r, cover: { ...r.cover, client_name: name, client_domain: domain } };
    };
    const item = (brandId: string, name: string | null, domain: string | null) => ({
      brandId,
      report: named(name, domain),
      href: reportHref(brandId, PERIOD.label, 'html'),
    });
    const rows = overviewRows(
      [
        item('ws_b', 'Acme', 'acme.example'),
        item('ws_a', 'Acme', 'acme-shop.example'),
        item('ws_d', 'Bolt', 'bolt.example'),
        item('ws_c', 'Bolt', 'bolt.example'),
        item('ws_e', 'Bolt', null),
        item('ws_f', 'Crux', 'crux.example'),
        item('ws_g', null, null),
        item('ws_h', null, null),
      ],
      new Map(),
    );
    const page = await renderOverview({
      period: PERIOD,
      previous: PREVIOUS,
      rows,
      trend: [],
      style: DEFAULT_STYLE,
    });
    const names = [...page.matchAll(/<tr><td>([\s\S]*?)<\/td>/g)].map((m) =>
      (m[1] as string).replace(/<[^>]+>/g, '').trim(),
    );
    // Same figures: rows by name (the unnamed first), then by what tells them apart; each row named
    // once, the id never shown.
    expect(names).toEqual([
      'unnamed client (1)',
      'unnamed client (2)',
      'Acme (acme-shop.example)',
      'Acme (acme.example)',
      'Bolt (1)',
      'Bolt (2)',
      'Bolt (3)',
      'Crux',
    ]);
    expect(page).not.toMatch(/ws_[a-h]\b(?!\/)/);
  });

  it('writes overview.pdf through the built bin when the reports have PDFs', async () => {
    const built = builtVisync();
    const { config } = await twoNights(h.tempDir(), NIGHTS, [], [2, 2]);
    const out = h.tempDir();
    await reportPdfThroughBin(built.bin, config, out);
    const pdf = join(out, 'account=acme', 'period=2026-11', 'overview.pdf');
    expect(existsSync(pdf)).toBe(true);
    const text = execFileSync('pdftotext', ['-layout', pdf, '-']).toString();
    expect(text).toContain('AI visibility overview');
    expect(text).toContain('Clients, largest drop first');
  }, 240_000);
});

/**
 * `visync report` of 2026-11 in HTML and PDF into `out`, through the built bin with its own Chromium,
 * as users run it (the default chromiumPath started through the bundle), not the test run's shared
 * one: an empty VISYNC_CHROMIUM_ENDPOINT is unset.
 */
async function reportPdfThroughBin(bin: string, config: string, out: string): Promise<void> {
  const run = await startProcess(
    NODE22,
    [bin, '--config', config, 'report', '--period', '2026-11', '--format', 'html,pdf', '--out', out],
    { env: { VISYNC_CHROMIUM_ENDPOINT: '' }, guardMs: 180_000 },
  ).exited;
  expect(run.code, run.stderr).toBe(0);
}

describe('overview.pdf through the built bin', () => {
  it('links where overview.html does, headers whole, two clients of one name told apart, the Gregorian month named (de-DE-u-ca-hebrew)', async () => {
    const built = builtVisync();
    const { config, last } = await twoNights(h.tempDir(), NIGHTS, [], [2, 2]);
    const ids = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds as [string, string];
    // The agency gave both workspaces one name; a locale whose calendar is the Hebrew one.
    const doc = parse(readFileSync(config, 'utf8')) as { accounts: Record<string, unknown>[] };
    (doc.accounts[0] as Record<string, unknown>).reports = {
      locale: 'de-DE-u-ca-hebrew',
      workspaces: { [ids[0]]: { clientName: 'Northwind' }, [ids[1]]: { clientName: 'Northwind' } },
    };
    writeFileSync(config, stringify(doc));
    const out = h.tempDir();
    await reportPdfThroughBin(built.bin, config, out);
    const folder = join(out, 'account=acme', 'period=2026-11');
    const pdf = join(folder, 'overview.pdf');
    const html = readFileSync(join(folder, 'overview.html'), 'utf8');

    // Links: the page's hrefs, each once per row, none to the origin Chromium printed from.
    const hrefs = [...html.matchAll(/<a href="([^"]+)"/g)].map((m) =>
      (m[1] as string).replaceAll('&amp;', '&'),
    );
    expect(hrefs).toHaveLength(2);
    const links = pdfLinks(pdf);
    expect(links.filter((u) => /\.invalid\b/.test(u))).toEqual([]);
    expect([...new Set(links)].sort()).toEqual([...hrefs].sort());
    // Relative to the PDF, as a reader opening it from its folder follows them: the reports written.
    for (const link of links) expect(existsSync(resolve(folder, decodeURIComponent(link))), link).toBe(true);
    // The clients' own PDFs hold no link to a made-up origin either.
    for (const id of ids) {
      const own = join(reportDir(out, id, '2026-11'), 'report.pdf');
      expect(existsSync(own)).toBe(true);
      expect(pdfLinks(own).filter((u) => /\.invalid\b/.test(u))).toEqual([]);
    }

    // Headers: each word of each column header is one word in the PDF, never split over two lines.
    const { t } = translator('de-DE');
    const headerWords = ['client', 'score', 'delta', 'share', 'events', 'report'].flatMap((k) =>
      t(`overview:col_${k}`).replaceAll('\u00ad', '').split(/\s+/),
    );
    const bbox = execFileSync('pdftotext', ['-bbox', pdf, '-']).toString();
    const words = [...bbox.matchAll(/>([^<]*)<\/word>/g)].map((m) =>
      (m[1] as string).replaceAll('\u00ad', ''),
    );
    expect(headerWords.filter((w) => !words.includes(w))).toEqual([]);

    // Two clients of one name: two different names in the table, each starting with it.
    const text = execFileSync('pdftotext', ['-layout', pdf, '-']).toString();
    const names = [...html.matchAll(/<tr><td>([\s\S]*?)<\/td>/g)].map((m) =>
      (m[1] as string).replace(/<[^>]+>/g, '').trim(),
    );
    expect(names).toHaveLength(2);
    expect(new Set(names).size, names.join(' | ')).toBe(2);
    for (const n of names) expect(n.startsWith('Northwind')).toBe(true);
    // Never the workspace id.
    for (const n of names) for (const id of ids) expect(n).not.toContain(id);

    // The period: November 2026 in German, not the Hebrew month its first day falls in.
    expect(text).toContain('November 2026');
    expect(html).toContain('November 2026');
    expect(html).not.toMatch(/5787|Cheschwan|Kislew/);
  }, 240_000);
});
