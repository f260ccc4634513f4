// A report locale whose language has no catalogue (pl-PL): the page is the English one, words AND
// dates and numbers (never Polish dates among English words), made through `visync report` from two
// synced nights and opened in headless Chromium; `visync doctor`'s report-language line names the
// locale, where it is set, what the report does instead and the catalogues there are
// (docs/reports.md, "Language").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config/read-config.js';
import { checkReportLanguages } from '../src/doctor/report-language-check.js';
import { openInChromium, reportDir, reportNovemberWith, twoNightsOnce } from './helpers/report-nights.js';

const nights = twoNightsOnce();

/** Month names, long and short, as `locale` writes them in dates (genitive forms too). */
function monthWords(locale: string): string[] {
  const words = new Set<string>();
  for (let m = 0; m < 12; m++)
    for (const month of ['long', 'short'] as const) {
      const d = Date.UTC(2026, m, 15);
      words.add(new Intl.DateTimeFormat(locale, { month, timeZone: 'UTC' }).format(d));
      for (const p of new Intl.DateTimeFormat(locale, {
        day: 'numeric',
        month,
        timeZone: 'UTC',
      }).formatToParts(d))
        if (p.type === 'month') words.add(p.value);
    }
  return [...words].map((w) => w.replace(/\.$/, '').toLowerCase()).filter((w) => w.length > 2);
}

describe('a report locale without a catalogue (pl-PL)', () => {
  it('reads English: words, dates and numbers, lang="en", as the page without a locale', async () => {
    const copy = nights.copy();
    const { out, first } = await reportNovemberWith(
      () => ({ top: { locale: 'pl-PL' } }),
      () => copy,
    );
    const file = join(reportDir(out, first, '2026-11'), 'report.html');
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('<html lang="en">');
    const { browser, page } = await openInChromium(file);
    try {
      const text = (await page.locator('main').innerText()).toLowerCase();
      const words = text.split(/[^\p{L}]+/u);
      const polish = monthWords('pl-PL').filter((w) => !monthWords('en-GB').includes(w));
      expect(polish.filter((w) => words.includes(w))).toEqual([]);
      // The period as the English page names it, and numbers with a decimal point.
      expect(text).toContain('november 2026');
      expect(text).not.toMatch(/\b\d+,\d\b/);
      expect(text).toMatch(/\b\d+\.\d\b/);
      // The charts' axes too.
      const axes = (await page.locator('svg text').allTextContents()).join(' ').toLowerCase();
      expect(polish.filter((w) => axes.split(/[^\p{L}]+/u).includes(w))).toEqual([]);
    } finally {
      await browser.close();
    }
    // doctor: a WARN naming the locale, where it is set, and the catalogues there are.
    const config = readConfig(copy.config, process.env, () => {});
    const [line] = checkReportLanguages(config, config.accounts);
    expect(line?.status).toBe('WARN');
    expect(line?.detail).toBe(
      'no catalogue for pl-PL (account acme): the report is in English, its words, dates and numbers; catalogues: en, de, fr, es, it, nl, pt',
    );
  }, 240_000);
});
