// The agency overview around its table (src/report/overview/): made with `--brand`, it names every
// client from the data (never "unnamed client"); its events column counts the kinds it names, as the
// period's brand_events hold them; no column header breaks inside a word; the PDF never has a page
// holding only the closing "Prepared by" line. Through `visync report` on two synced nights, headless
// Chromium and poppler.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeRuns } from '../src/history/complete-runs.js';
import { parsePeriod } from '../src/history/period.js';
import { eventRows } from '../src/history/run-events.js';
import { OVERVIEW_EVENT_KINDS } from '../src/report/overview/events.js';
import { renderOverview } from '../src/report/overview/page.js';
import { overviewRows, portfolioTrend, reportHref } from '../src/report/overview/rows.js';
import { PdfSession } from '../src/report/render/pdf.js';
import { DEFAULT_STYLE, type ReportStyle } from '../src/report/style.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { pdfPages } from './helpers/pdf-pages.js';
import { openInChromium, reportNovember, twoNightsOnce } from './helpers/report-nights.js';
import { PERIOD, PREVIOUS, report } from './helpers/report-workspace.js';

const nights = twoNightsOnce();

/** The English page's word for each kind the events column counts (catalogue area `overview`). */
const KIND_WORDS: Record<string, string> = {
  'score drop': 'score_drop',
  'engine drop': 'engine_score_drop',
  'share-of-voice drop': 'share_of_voice_drop',
  'new false claim': 'false_claim_new',
  'new conflict': 'conflict_new',
  'new competitor': 'competitor_new',
};

async function november(config: string, extra: string[] = []) {
  return join(
    await reportNovember(config, 'html,json', extra),
    'account=acme',
    'period=2026-11',
    'overview.html',
  );
}

async function cells(file: string, column: number): Promise<string[]> {
  const { browser, page } = await openInChromium(file);
  try {
    return (await page.locator(`table.clients tbody tr td:nth-child(${column})`).allInnerTexts()).map((s) =>
      s.replace(/\s+/g, ' ').trim(),
    );
  } finally {
    await browser.close();
  }
}

describe('agency overview around its table', () => {
  it('made with --brand, names every client as the data does, the others too', async () => {
    const { config, brands } = nights.copy();
    const all = await cells(await november(config), 1);
    const one = await cells(await november(config, ['--brand', brands[0] as string]), 1);
    expect(one).toHaveLength(brands.length);
    expect(one.join('|')).not.toMatch(/unnamed/);
    expect([...one].sort()).toEqual([...all].sort());
  }, 240_000);

  it("counts the period's events per kind it names, as brand_events hold them", async () => {
    const { config, dir, brands } = nights.copy();
    const file = await november(config);
    const store = new FsObjectStore(dir);
    const period = parsePeriod('2026-11')!;
    const runs = (await completeRuns(store, 'acme', Date.now())).filter(
      (r) => r.runDate >= period.from && r.runDate <= period.to,
    );
    const events = await eventRows(store, runs);
    const counted: readonly string[] = OVERVIEW_EVENT_KINDS;
    // The nights hold events the column counts and others it leaves to the reports.
    expect(events.filter((e) => counted.includes(String(e.event_type))).length).toBeGreaterThan(0);
    expect(events.filter((e) => !counted.includes(String(e.event_type))).length).toBeGreaterThan(0);
    const html = readFileSync(file, 'utf8');
    const { browser, page } = await openInChromium(file);
    try {
      const rows = page.locator('table.clients tbody tr');
      expect(await rows.count()).toBe(brands.length);
      // The kinds the column counts, named under the table.
      const note = (await page.locator('.events-note').innerText()).toLowerCase();
      for (const brand of brands) {
        const link = await rows.locator(`a[href*="${encodeURIComponent(`brand=${brand}`)}"]`).count();
        expect(link, html).toBe(1);
        const cell = (
          await rows
            .filter({ has: page.locator(`a[href*="${encodeURIComponent(`brand=${brand}`)}"]`) })
            .locator('td:nth-child(5)')
            .innerText()
        ).trim();
        const mine = events.filter((e) => e.brand_id === brand);
        const shown = new Map<string, number>();
        for (const part of cell === 'none' ? [] : cell.split(/,\s*/)) {
          const [, n = 'NaN', kind = ''] = /^(\d+) (.+)$/.exec(part) ?? [];
          expect(kind, cell).not.toBe('');
          shown.set(kind.toLowerCase(), Number(n));
        }
        const total = mine.filter((e) => counted.includes(String(e.event_type))).length;
        expect(
          [...shown.values()].reduce((a, b) => a + b, 0),
          `${brand}: ${cell}`,
        ).toBe(total);
        for (const [kind, n] of shown) {
          const word = kind.replace(/s$/, '');
          expect(note).toContain(word);
          const type = KIND_WORDS[word];
          expect(n, `${brand}: ${kind}`).toBe(mine.filter((e) => e.event_type === type).length);
        }
      }
    } finally {
      await browser.close();
    }
  }, 240_000);
});

describe('the overview page in print', () => {
  let session: PdfSession;
  beforeAll(async () => {
    session = await PdfSession.open('/usr/bin/chromium');
  });
  afterAll(() => session?.close());

  const page = (n: number, style: ReportStyle) => {
    const items = Array.from({ length: n }, (_, i) => ({
      brandId: `ws_${String(i).padStart(2, '0')}`,
      report: report({ scores: [50, 50, 50, 40 + i] }),
      href: reportHref(`ws_${i}`, PERIOD.label, 'html' as const),
    }));
    const rows = overviewRows(
      items,
      new Map(
        items.map((x, i) => [x.brandId, { score_drop: i % 3, engine_score_drop: i % 5, conflict_new: 1 }]),
      ),
    );
    return renderOverview({
      period: PERIOD,
      previous: PREVIOUS,
      rows,
      trend: portfolioTrend(items.map((x) => x.report)),
      style,
    });
  };

  /** The words (between spaces) of the cells `selector` finds that do not sit on one line. */
  const splitWords = (p: import('playwright-core').Page, selector: string) =>
    p.locator(selector).evaluateAll((cells) =>
      cells.flatMap((cell) => {
        const out: string[] = [];
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        // A word is what lies between spaces, across the cell's elements (a no-break space joins, as
        // in "30,0 %"): a break even at a catalogue's soft hyphen counts.
        let word: { text: string; tops: Set<number> } = { text: '', tops: new Set() };
        const end = () => {
          if (word.tops.size > 1) out.push(word.text);
          word = { text: '', tops: new Set() };
        };
        for (let text = walker.nextNode(); text; text = walker.nextNode()) {
          const s = text.textContent ?? '';
          for (let c = 0; c < s.length; c++) {
            if (/[ \t\n\r\f]/.test(s[c] as string)) {
              end();
              continue;
            }
            const r = document.createRange();
            r.setStart(text, c);
            r.setEnd(text, c + 1);
            const box = [...r.getClientRects()].find((x) => x.width > 0);
            word.text += s[c];
            if (box) word.tops.add(Math.round(box.top));
          }
        }
        end();
        return out;
      }),
    );

  it('no column header breaks inside a word, nor a client name, a domain or a figure (German, A4 width)', async () => {
    const style = { ...DEFAULT_STYLE, locale: 'de-DE', agencyName: 'Northwind Digital' };
    const file = join(h.tempDir(), 'overview.html');
    // Names as agencies write them: long words, two clients of one name told apart by their domains.
    const names: [string, string][] = [
      ['Nordwind Fahrradmanufaktur Gesellschaft', 'nordwind-fahrraeder.example'],
      ['Acme', 'acme-versand.example'],
      ['Acme', 'acme-handel.example'],
      ['Krux Versicherungsmakler', 'krux.example'],
    ];
    const items = names.map(([name, domain], i) => {
      const r = report({ scores: [50, 50, 50, 40 + i] });
      return {
        brandId: `ws_${i}`,
        report: { ...r, cover: { ...r.cover, client_name: name, client_domain: domain } },
        href: reportHref(`ws_${i}`, PERIOD.label, 'html' as const),
      };
    });
    const all = {
      score_drop: 3,
      engine_score_drop: 12,
      share_of_voice_drop: 2,
      false_claim_new: 4,
      conflict_new: 1,
      competitor_new: 2,
    };
    const rows = overviewRows(items, new Map(items.map((x) => [x.brandId, all])));
    writeFileSync(file, await renderOverview({ period: PERIOD, previous: PREVIOUS, rows, trend: [], style }));
    const { browser, page: p } = await openInChromium(file);
    try {
      // The printable width of A4 with the PDF's margins (210 - 2 x 14 mm).
      await p.setViewportSize({ width: 688, height: 1000 });
      expect(await splitWords(p, 'table.clients th')).toEqual([]);
      // Name, score, change and share: whole words and figures ("30,0 %" on one line).
      expect(await splitWords(p, 'table.clients td:nth-child(-n+4)')).toEqual([]);
      // Each event count with its words: no line starting with the comma after one.
      // biome-ignore lint/performance/useDomNodeTextContent: the lines as laid out are what is checked
      const events = await p.locator('table.clients td:nth-child(5)').first().innerText();
      expect(events.split('\n').filter((l) => /^\s*,/.test(l))).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("prints each link as the page has it: relative ones relative to the PDF, another origin's as written", async () => {
    const hrefs = [
      '../brand%3Dws_(1)/period%3D2026-11/report.html',
      '../../elsewhere/a%20b.html?x=1#top',
      'report.pdf',
      'https://agency.example/clients?id=1',
    ];
    const page = `<!DOCTYPE html><html><body>${hrefs.map((h) => `<p><a href="${h.replaceAll('&', '&amp;')}">link</a></p>`).join('')}</body></html>`;
    const file = join(h.tempDir(), 'links.pdf');
    writeFileSync(file, await session.render(page, { pageSize: 'A4' }));
    const links = execFileSync('pdfinfo', ['-url', file])
      .toString()
      .split('\n')
      .slice(1)
      .flatMap((l) => /Annotation\s+(\S+)/.exec(l)?.[1] ?? []);
    expect(links).toEqual(hrefs);
  });

  it('never prints a page holding only the closing "Prepared by" line', async () => {
    const style = { ...DEFAULT_STYLE, agencyName: 'Northwind Digital' };
    const alone: number[] = [];
    // Client counts whose table ended just above a page's foot (7, 8, 26, 27 left the closing line
    // alone on the next page before it was kept with the trend), and some around them.
    for (const n of [1, 6, 7, 8, 12, 26, 27]) {
      const pdf = await session.render(await page(n, style), { pageSize: 'A4' });
      const pages = pdfPages(pdf);
      for (const pg of pages.slice(1))
        if (pg.bodyLines.every((l) => /Prepared by Northwind Digital/.test(l) || l.trim() === ''))
          alone.push(n);
    }
    expect(alone).toEqual([]);
  }, 240_000);
});
