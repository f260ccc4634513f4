// The whole book (src/report/overview/book.ts, docs/reports.md "The whole book"): with the top-level
// `reports.agency` a mapping, `visync report` over every account writes
// `agency/period=P/overview.html` in the agency's locale: one row per client of every account,
// the account named, the accounts' overview order and headline, each link opening a report that
// exists, an account without data named with why, hostile names kept text; the string form and
// the mapping's place checked at load in test/report-agency-book.test.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Report } from '../src/report/model/report-shape.js';
import { headlineOf } from '../src/report/summary/headline.js';
import { runVisync } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { syncNights } from './helpers/nights.js';
import { pdfLinks } from './helpers/pdf-pages.js';
import { NIGHTS } from './helpers/report-nights.js';
import { chromiumBrowser } from './helpers/shared-chromium.js';

const HOSTILE = '<img src=x onerror=alert(1)>Acme "&" Co';
const AGENCY = 'Nord & <b>Söhne</b>';

/** acme (2 workspaces) and beta (1) synced on two nights; gamma configured, never synced. */
async function threeAccounts(dir: string): Promise<{ config: string; ids: Record<string, string[]> }> {
  const spec = {
    accounts: [
      { name: 'acme', workspaces: 2 },
      { name: 'beta', workspaces: 1 },
      { name: 'gamma', workspaces: 1 },
    ],
    seed: 22,
  };
  return syncNights(dir, spec, NIGHTS, {
    accounts: ['acme', 'beta'],
    config: { extract: { visibilityDays: 30 } },
  });
}

describe('the whole book through the built bin', () => {
  it('lists every client of every account in de-DE, links each to its report, names the account without data, keeps names text', async () => {
    const { config, ids } = await threeAccounts(h.tempDir());
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown> & {
      accounts: Record<string, unknown>[];
    };
    doc.reports = { agency: { name: AGENCY, locale: 'de-DE' }, locale: 'en-GB' };
    const first = ids.acme?.[0] as string;
    (doc.accounts[0] as Record<string, unknown>).reports = {
      workspaces: { [first]: { clientName: HOSTILE } },
    };
    writeFileSync(config, stringify(doc));
    const out = h.tempDir();
    const run = await runVisync(
      ['--config', config, 'report', '--period', '2026-11', '--format', 'html,json', '--out', out],
      {},
      180_000,
    );
    // gamma has no complete run: its own line, exit 1; the others and the book are written.
    expect(run.stderr).toContain('account gamma: no complete run');
    expect(run.code).toBe(1);
    const file = join(out, 'agency', 'period=2026-11', 'overview.html');
    expect(run.stdout).toContain(`agency overview 2026-11: ${file}`);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>Söhne');

    const browser = await chromiumBrowser();
    try {
      const context = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1024, height: 800 },
      });
      let requests = 0;
      await context.route('http*://**/*', (route) => {
        requests += 1;
        return route.abort();
      });
      const page = await context.newPage();
      await page.goto(pathToFileURL(file).href);
      expect(await page.getAttribute('html', 'lang')).toBe('de-DE');
      expect(await page.locator('h1').textContent()).toBe('Überblick KI-Sichtbarkeit, alle Konten');
      expect(await page.locator('table.clients th').first().textContent()).toBe('Konto');
      expect(await page.locator('.agency').textContent()).toBe(AGENCY);
      const rows = page.locator('table.clients tbody tr');
      expect(await rows.count()).toBe(3);
      const accounts = await page.locator('table.clients tbody td.account').allTextContents();
      expect([...accounts].sort()).toEqual(['acme', 'acme', 'beta']);
      expect(await page.locator('table.clients img').count()).toBe(0);
      expect(await page.locator('table.clients').textContent()).toContain(HOSTILE);
      // gamma: named, with why, in German.
      expect(await page.locator('.book-missing li').allTextContents()).toEqual([
        'gamma: noch kein vollständiger Lauf, daher kein Bericht.',
      ]);
      // Each link, resolved from the book's folder, is a report written; in the accounts' order.
      const hrefs = await page
        .locator('table.clients a')
        .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
      expect(hrefs).toHaveLength(3);
      const deltas: number[] = [];
      for (const [i, href] of hrefs.entries()) {
        const path = fileURLToPath(href);
        const json = JSON.parse(readFileSync(join(path, '..', 'report.json'), 'utf8')) as Report;
        expect(json.account).toBe(accounts[i]);
        expect(ids[json.account]).toContain(json.brand_id);
        expect(readFileSync(path, 'utf8')).toContain('<!DOCTYPE html>');
        deltas.push(headlineOf(json).delta ?? Number.POSITIVE_INFINITY);
      }
      expect(deltas).toEqual([...deltas].sort((a, b) => a - b));
      expect(requests).toBe(0);
      await page.screenshot({ path: join(h.tempDir(), 'agency-de.png'), fullPage: true });
      if (process.env.AGENCY_PNG) await page.screenshot({ path: process.env.AGENCY_PNG, fullPage: true });
    } finally {
      await browser.close();
    }
  }, 300_000);
});

describe('the whole book in the object store', () => {
  it("writes overview.html and overview.pdf with a manifest beside the accounts, the PDF in the book's locale, its links opening reports that exist", async () => {
    const dir = h.tempDir();
    const { config } = await threeAccounts(dir);
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
    doc.reports = { agency: { name: 'Northwind', locale: 'fr-FR' } };
    writeFileSync(config, stringify(doc));
    const run = await runVisync(
      ['--config', config, 'report', '--period', '2026-11', '--format', 'html,pdf', '--json'],
      {},
      180_000,
    );
    expect(run.code).toBe(1); // gamma: no complete run
    const folder = join(dir, 'reports', 'agency', 'period=2026-11');
    const said = JSON.parse(run.stdout) as { agency_overview?: string };
    expect(said.agency_overview).toMatch(/\/reports\/agency\/period=2026-11\/overview\.html$/);
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as {
      files: { key: string }[];
    };
    expect(manifest.files.map((f) => f.key).sort()).toEqual([
      'reports/agency/period=2026-11/overview.html',
      'reports/agency/period=2026-11/overview.pdf',
    ]);
    const pdf = join(folder, 'overview.pdf');
    expect(execFileSync('pdftotext', ['-layout', pdf, '-']).toString()).toContain('Compte');
    // A link wrapped over two lines is two annotations of one URI.
    const links = [...new Set(pdfLinks(pdf))];
    expect(links).toHaveLength(3);
    for (const link of links) {
      const target = fileURLToPath(new URL(link, pathToFileURL(pdf)));
      expect(target.startsWith(join(dir, 'reports', 'account='))).toBe(true);
      expect(existsSync(target), target).toBe(true);
      expect(target.endsWith('report.html')).toBe(true); // the HTML where there is one, as the accounts' overviews
    }
  }, 300_000);
});

describe('the whole book and several object stores', () => {
  it('is not written when the accounts write to more than one store and there is no --out (one line says to use --out), nor with --brand', async () => {
    const dir = h.tempDir();
    const { config, ids } = await threeAccounts(dir);
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown> & {
      accounts: Record<string, unknown>[];
    };
    doc.reports = { agency: { name: 'Northwind', locale: 'de-DE' } };
    (doc.accounts[2] as Record<string, unknown>).fs = { dir: h.tempDir() };
    writeFileSync(config, stringify(doc));
    const r = await h.visyncCli(config, ['report', '--period', '2026-11', '--format', 'html']);
    expect(r.err).toContain(
      'visync: the whole-book overview (reports.agency) is not written: the accounts write to 2 object stores and its links are relative; run `visync report --out DIR` to have it in one folder',
    );
    expect(r.out.some((l) => l.startsWith('agency overview'))).toBe(false);
    expect(existsSync(join(dir, 'reports', 'agency'))).toBe(false);
    // Each account's own overview is still written.
    expect(r.out.some((l) => l.startsWith('acme overview 2026-11: '))).toBe(true);
    // One client (--brand): the other accounts write no overview, so no book either.
    const out = h.tempDir();
    const one = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-11',
      '--brand',
      ids.beta?.[0] as string,
      '--out',
      out,
    ]);
    expect(one.out.some((l) => l.startsWith('beta overview 2026-11: '))).toBe(true);
    expect(one.out.some((l) => l.startsWith('agency overview'))).toBe(false);
    expect(existsSync(join(out, 'agency'))).toBe(false);
  }, 120_000);
});

describe('the whole book in PDF', () => {
  it('prints overview.pdf when the top-level reports.formats has pdf, though no account makes PDFs (docs/reports.md)', async () => {
    const { config } = await threeAccounts(h.tempDir());
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown> & {
      accounts: Record<string, unknown>[];
    };
    doc.reports = { agency: { name: 'Northwind' }, formats: ['html', 'pdf'] };
    for (const a of doc.accounts) a.reports = { formats: ['html', 'json'] };
    writeFileSync(config, stringify(doc));
    const out = h.tempDir();
    const r = await h.visyncCli(config, ['report', '--period', '2026-11', '--out', out]);
    expect(r.code).toBe(1); // gamma: no complete run
    const folder = join(out, 'agency', 'period=2026-11');
    expect(r.out).toContain(`agency overview 2026-11: ${join(folder, 'overview.html')}`);
    // The accounts' reports and overviews are as they asked: no PDF.
    expect(existsSync(join(out, 'account=acme', 'period=2026-11', 'overview.pdf'))).toBe(false);
    const pdf = readFileSync(join(folder, 'overview.pdf'));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  }, 120_000);
});
