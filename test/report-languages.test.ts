// One workspace of real synced data rendered in each catalogue language: no English word of the
// catalogues left on the page outside the API's own strings (each in a <bdi>), `<html lang>` the
// locale, no English month name in the charts, the PDF footer in the language; a locale without a
// catalogue keeps English words; `reports.engineNames` renames an engine everywhere.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { CATALOGUES, LANGUAGES, type Language } from '../src/report/i18n/catalogues/index.js';
import { reportLocale } from '../src/report/i18n/translate.js';
import { makeAccountReports } from '../src/report/make.js';
import { dirTarget } from '../src/report/output.js';
import { PdfSession } from '../src/report/render/pdf.js';
import { DEFAULT_STYLE, type ReportStyle } from '../src/report/style.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import * as h from './helpers/harness.js';
import { openInChromium, reportDir, twoNights } from './helpers/report-nights.js';

const LOCALE: Record<Language, string> = {
  en: 'en-GB',
  de: 'de-DE',
  fr: 'fr-FR',
  es: 'es-ES',
  it: 'it-IT',
  nl: 'nl-NL',
  pt: 'pt-PT',
};
/** The areas this page is made of (the others belong to the e-mail and the overview). */
const PAGE_AREAS = ['page', 'charts', 'pdf', 'summary', 'competitors'] as const;
const PERIOD = '2026-10-12_2026-11-10';

/** The words of a catalogue's texts, placeholders left out, lower-cased. */
function wordsOf(lang: Language): Set<string> {
  const texts = PAGE_AREAS.flatMap((a) => Object.values(CATALOGUES[lang][a]));
  return new Set(
    texts.flatMap(
      (s) =>
        s
          .replace(/\{\{[^}]*\}\}/g, ' ')
          .toLowerCase()
          .match(/\p{L}[\p{L}'’-]*/gu) ?? [],
    ),
  );
}

const EN_MONTHS = [
  ...Array.from({ length: 12 }, (_, m) =>
    new Intl.DateTimeFormat('en-US', { month: 'long', timeZone: 'UTC' }).format(Date.UTC(2026, m, 1)),
  ),
  ...['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
];

/** Month names as the locale writes them (long and short, lower case), to spare a name both languages share. */
function monthsOf(locale: string): Set<string> {
  const out = new Set<string>();
  for (const month of ['long', 'short'] as const)
    for (let m = 0; m < 12; m++) {
      const name = new Intl.DateTimeFormat(locale, { month, timeZone: 'UTC' }).format(Date.UTC(2026, m, 1));
      out.add(name.toLowerCase());
      out.add(name.toLowerCase().replace(/\.$/, ''));
    }
  return out;
}

/** The engines' display names of the fixture's data (src/report/i18n/engines.ts). */
const PRODUCTS = ['Google AI Overviews', 'ChatGPT', 'Claude', 'Gemini', 'Perplexity', 'Copilot', 'Grok'];

let dir = '';
let out = '';
let config = '';
let first = '';

function render(style: Partial<ReportStyle>, to: string) {
  return makeAccountReports({
    store: new FsObjectStore(dir),
    target: dirTarget(to),
    account: 'acme',
    brands: [first],
    formats: ['html', 'json'],
    styleFor: () => ({ ...DEFAULT_STYLE, dataDetails: true, ...style }),
    now: Date.now(),
  });
}

const pageOf = (to: string) => readFileSync(join(reportDir(to, first, PERIOD), 'report.html'), 'utf8');

describe('the report in each catalogue language', () => {
  // The harness's temporary folders go after each test; these serve every test of the file.
  const kept: string[] = [];
  const keptDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'visync-languages-'));
    kept.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of kept) rmSync(d, { recursive: true, force: true });
  });

  beforeAll(async () => {
    dir = keptDir();
    const nights = await twoNights(dir);
    const { last } = nights;
    config = nights.config;
    first = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds[0] as string;
    out = keptDir();
    for (const lang of LANGUAGES) {
      const made = await render({ locale: LOCALE[lang] }, join(out, lang));
      expect(made.problems).toEqual([]);
    }
  }, 240_000);

  for (const lang of LANGUAGES.filter((l) => l !== 'en'))
    it(`${LOCALE[lang]}: no English word outside the API's strings, lang="${LOCALE[lang]}", no English month in the charts`, async () => {
      const page = pageOf(join(out, lang));
      const english = wordsOf('en');
      for (const w of wordsOf(lang)) english.delete(w);

      const c = await openInChromium(join(reportDir(join(out, lang), first, PERIOD), 'report.html'));
      try {
        expect(await c.page.getAttribute('html', 'lang')).toBe(LOCALE[lang]);
        // What a reader sees, the API's strings (each in a <bdi>) and the chart SVGs left out.
        // Engine names are products (Google AI Overviews), the same in every language.
        const own = await c.page.evaluate((products) => {
          for (const e of document.querySelectorAll('bdi, svg')) e.remove();
          // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out, cells apart
          let text = `${document.title}\n${document.body.innerText}`;
          for (const p of products) text = text.replaceAll(p, ' ');
          return text;
        }, PRODUCTS);
        const left = [...new Set(own.toLowerCase().match(/\p{L}[\p{L}'’-]*/gu) ?? [])].filter((w) =>
          english.has(w),
        );
        expect(left, own).toEqual([]);
      } finally {
        await c.browser.close();
      }

      // Chart text: axis titles and legends in the language, no English month name.
      const svgText = [...page.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] as string);
      expect(svgText.length).toBeGreaterThan(0);
      // A name the language spells the same (de `Nov`, it `Nov`) is not English.
      const own = monthsOf(LOCALE[lang]);
      const months = EN_MONTHS.filter((m) => !own.has(m.toLowerCase()));
      const found = svgText.filter((s) => months.some((m) => new RegExp(`\\b${m}\\b`).test(s)));
      expect(found).toEqual([]);
      const labels = PRODUCTS.reduce((text, p) => text.replaceAll(p, ' '), svgText.join(' '));
      const chartWords = new Set(labels.toLowerCase().match(/\p{L}[\p{L}'’-]*/gu) ?? []);
      expect([...chartWords].filter((w) => english.has(w))).toEqual([]);
      // Numbers in the locale's formats: no point as a decimal mark where the locale writes a comma.
      if (new Intl.NumberFormat(LOCALE[lang]).format(1.5) === '1,5')
        expect(page.replace(/<[^>]*>/g, ' ').match(/\b\d+\.\d\b(?!\.)/g) ?? []).toEqual([]);
    });

  it('German: the period named once as the locale says it, the engines by name, ids only in the data details', () => {
    const page = pageOf(join(out, 'de'));
    expect(page).toContain(
      '<title>Ravane Cloud – KI-Sichtbarkeitsbericht, 12. Oktober\u2009–\u200910. November 2026</title>',
    );
    expect(page).toContain(
      'KI-Sichtbarkeitsbericht, 12. Oktober\u2009–\u200910. November 2026. Verglichen mit 12. September\u2009–\u200911. Oktober 2026.',
    );
    expect(page).toContain('<bdi>Google AI Overviews</bdi>');
    expect(page).not.toContain('<bdi>ai_overviews</bdi>');
    // The workspace id and account only in the data details, after the last section.
    const details = page.indexOf('<h2>Datendetails</h2>');
    expect(details).toBeGreaterThan(0);
    expect(page.indexOf(first)).toBeGreaterThan(details);
    expect(page).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it('off by default: no data details, no workspace id, account or run id on the page', async () => {
    const to = h.tempDir();
    await render({ locale: 'de-DE', dataDetails: false }, to);
    const page = pageOf(to);
    const json = JSON.parse(readFileSync(join(reportDir(to, first, PERIOD), 'report.json'), 'utf8')) as {
      runs: string[];
    };
    expect(page).not.toContain('Datendetails');
    for (const id of [first, 'acme', ...json.runs]) expect(page).not.toContain(id);
  });

  it('a locale without a catalogue: the English page, words, dates and numbers, lang="en"', async () => {
    const to = h.tempDir();
    // As the config's settings give it (src/report/settings.ts): ja-JP has no catalogue.
    await render({ locale: reportLocale('ja-JP') ?? null }, to);
    const page = pageOf(to);
    expect(page).toContain('<html lang="en">');
    expect(page).toContain('<h2>Key figures</h2>');
    expect(page).toContain('<td>2026-10-12</td>');
    expect(page).not.toContain('2026/10/12');
  });

  it("the API's texts keep their words, the client named as the agency names it (clientName)", async () => {
    const to = h.tempDir();
    await render({ locale: 'de-DE', clientName: 'Ravane GmbH' }, to);
    const page = pageOf(to);
    expect(page).toContain('<h1><bdi>Ravane GmbH</bdi></h1>');
    // The fixture's claims and conflicts name the brand; English, as the API sent them.
    expect(page).toContain('<bdi>Ravane GmbH costs $48 per month.</bdi>');
    expect(page).not.toContain('Ravane Cloud');
  });

  it('reports.engineNames renames an engine in tables, charts and changes', async () => {
    const to = h.tempDir();
    await render(
      { locale: 'fr-FR', engineNames: { ai_overviews: 'AI Overviews', claude: 'Claude (Anthropic)' } },
      to,
    );
    const page = pageOf(to);
    expect(page).toContain('<bdi>AI Overviews</bdi>');
    expect(page).toContain('Claude (Anthropic)</text>');
    expect(page).not.toContain('Google AI Overviews');
  });

  it('the PDF of the German page: "Seite 1 von N" at the foot of every page, the document in German', async () => {
    const session = await PdfSession.open();
    try {
      const pdf = await session.render(pageOf(join(out, 'de')), { pageSize: 'A4', locale: 'de-DE' });
      const file = join(h.tempDir(), 'report.pdf');
      writeFileSync(file, pdf);
      const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1]);
      expect(pages).toBeGreaterThan(1);
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      for (let n = 1; n <= pages; n++) expect(text).toContain(`Seite ${n} von ${pages}`);
      expect(text).not.toMatch(/Page \d+ of/);
      expect(Buffer.from(pdf).toString('latin1')).toMatch(/\/Lang \((de-DE|de)\)/);
      // REPORT_SHOTS=DIR keeps this PDF to look at (the picture in README.md is made from the
      // demo's data through the bin, docs/reports.md "Language").
      if (process.env.REPORT_SHOTS) writeFileSync(join(process.env.REPORT_SHOTS, 'report-de.pdf'), pdf);
    } finally {
      await session.close();
    }
  }, 120_000);

  it('through the built bin: `visync report` with reports.locale de-DE writes the German page and PDF', () => {
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
    doc.reports = { locale: 'de-DE' };
    const german = join(dirname(config), 'visync-de.yaml');
    writeFileSync(german, stringify(doc));
    const to = keptDir();
    execFileSync(
      NODE22,
      [
        builtVisync().bin,
        '--config',
        german,
        'report',
        '--brand',
        first,
        '--format',
        'html,pdf',
        '--out',
        to,
      ],
      { encoding: 'utf8', cwd: dirname(config) },
    );
    const folder = reportDir(to, first, PERIOD);
    const page = readFileSync(join(folder, 'report.html'), 'utf8');
    expect(page).toContain('<html lang="de-DE">');
    expect(page).toContain('<h2>Kennzahlen</h2>');
    expect(page).toMatch(/>\d{2}\. Okt<\/text>/);
    const text = execFileSync('pdftotext', ['-layout', join(folder, 'report.pdf'), '-'], {
      encoding: 'utf8',
    });
    expect(text).toMatch(/Seite 1 von \d+/);
  }, 120_000);
});
