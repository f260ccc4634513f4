// The executive summary (src/report/summary/): sentences chosen from the report's figures and worded
// from the catalogue in the report's language; each figure it cites moves with the data; a missing
// figure is said to be missing. The account manager's notes: Markdown under the summary, raw HTML
// shown as text, a missing file no section and no error.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../src/report/render/html.js';
import { DEFAULT_STYLE, type ReportStyle } from '../src/report/style.js';
import { notesPath, readNotes } from '../src/report/summary/notes.js';
import { summarySection } from '../src/report/summary/section.js';
import { summarySentences } from '../src/report/summary/sentences.js';
import * as h from './helpers/harness.js';
import { pageText } from './helpers/page-text.js';
import { report } from './helpers/report-workspace.js';

const de: ReportStyle = { ...DEFAULT_STYLE, locale: 'de-DE' };
/** The summary as a reader sees it: tags gone, entities read. */
async function said(r = report(), style: ReportStyle = DEFAULT_STYLE, notes: string | null = null) {
  return pageText((await summarySection(r, style, notes)).toString());
}

describe('executive summary', () => {
  it('says where the score went, why, and the next step, in three to five sentences', async () => {
    const r = report();
    expect(summarySentences(r).map((s) => s.key)).toEqual([
      'score_down',
      'engine_moved',
      'flags_new',
      'money_lost_to',
      'next_step',
    ]);
    const text = await said(r);
    // The period mean, as the first card (src/report/summary/headline.ts), not the last day's 47.5.
    expect(text).toContain(
      'The mean overall visibility score over the period fell from 51.6 to 49.6 (\u22122.0 points).',
    );
    expect(text).toContain('The biggest engine move was on ChatGPT: from 60.0 to 48.5 (\u221211.5 points).');
    expect(text).toContain('1 new suspected false claim appeared, on Claude.');
    expect(text).toContain(
      'Visibility on money prompts fell from 42.0 to 35.0 (\u22127.0 points); Acme wins the most of them, 2 prompts.',
    );
    expect(text).toContain('Next step: Publish comparison page (the first of 2 open recommendations).');
  });

  it('changes its sentence when one figure changes', async () => {
    const one = await said(report());
    const other = await said(report({ scores: [52, 50, 49, 58.25] }));
    expect(other).toContain(
      'The mean overall visibility score over the period rose from 51.6 to 52.3 (+0.7 points).',
    );
    expect(other).not.toContain('period fell from');
    expect(one).not.toBe(other);
    // The engine mover follows the engines' figures.
    expect(await said(report({ engines: { chatgpt: 60, gemini: 30 } }))).toContain(
      'The biggest engine move was on Gemini: from 40.0 to 30.0 (\u221210.0 points).',
    );
    // Two new claims on two engines: the plural, both named in one list.
    expect(await said(report({ flags: ['claude', 'gemini'] }))).toContain(
      '2 new suspected false claims appeared, on Claude and Gemini.',
    );
    // The next step is the top open recommendation, whichever it is.
    expect(await said(report({ open: ['Rewrite the FAQ'] }))).toContain(
      'Next step: Rewrite the FAQ (the only open recommendation).',
    );
  });

  it('gives the reasons that hold, in the score direction first, and says when none does', async () => {
    // Score up; chatgpt up too: the engine move is named first, then the bad news.
    const up = report({ scores: [52, 50, 49, 60], engines: { chatgpt: 70, gemini: 40 } });
    expect(summarySentences(up).map((s) => s.key)).toEqual([
      'score_up',
      'engine_moved',
      'flags_new',
      'money_lost_to',
      'next_step',
    ]);
    // Score down, engine up: the claims and the money prompts explain the drop before the engine.
    const down = report({ engines: { chatgpt: 70, gemini: 40 } });
    expect(summarySentences(down).map((s) => s.key)).toEqual([
      'score_down',
      'flags_new',
      'money_lost_to',
      'engine_moved',
      'next_step',
    ]);
    const calm = report({ engines: BEFORE_ENGINES, flags: [], money: 42 });
    expect(summarySentences(calm).map((s) => s.key)).toEqual(['score_down', 'no_reason', 'next_step']);
    expect(await said(calm)).toContain(
      'No engine moved noticeably, no new suspected false claim appeared and visibility on money prompts did not fall.',
    );
    // Money prompts lost with no competitor named: the loss without a name.
    expect(summarySentences(report({ losses: [null] })).map((s) => s.key)).toContain('money_lost');
  });

  it('says a missing figure is missing, never 0', async () => {
    const none = report({ scores: [null, null, null, null], money: null, open: [] });
    const text = await said(none);
    expect(text).toContain(
      'The overall visibility score is missing for this period: no day of it has a score.',
    );
    expect(text).toContain('Visibility on money prompts is missing for this period.');
    expect(text).toContain('No recommendation is open at the end of the period.');
    expect(text).not.toMatch(/\b0[.,]0\b/);
    const first = report({}, { scores: [null, null, null, null] });
    expect(await said(first)).toContain(
      'The mean overall visibility score over the period was 49.6; there is no comparable score from the previous period.',
    );
  });

  it("speaks the report's language with its number formats", async () => {
    const text = await said(report(), de);
    expect(text).toContain(
      'Der mittlere Gesamt-Sichtbarkeitswert des Zeitraums sank von 51,6 auf 49,6 (\u22122,0 Punkte).',
    );
    expect(text).toContain(
      'Nächster Schritt: Publish comparison page (die erste von 2 offenen Empfehlungen).',
    );
    expect(
      await said(report({ flags: ['claude', 'gemini'] }), { ...DEFAULT_STYLE, locale: 'fr-FR' }),
    ).toContain('2 nouvelles affirmations présumées fausses sont apparues, sur Claude et Gemini.');
  });

  it('escapes what the API names', async () => {
    const page = (
      await summarySection(report({ open: ['<img src=x onerror=alert(1)>'] }), DEFAULT_STYLE, null)
    ).toString();
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('sits under the cover of the page', async () => {
    const page = await renderHtml(report(), DEFAULT_STYLE);
    const cover = page.indexOf('<header class="cover">');
    const summary = page.indexOf('<section class="summary">');
    expect(cover).toBeGreaterThan(-1);
    expect(summary).toBeGreaterThan(cover);
    expect(summary).toBeLessThan(page.indexOf('<h2>Key figures</h2>'));
  });
});

const BEFORE_ENGINES = { chatgpt: 60, gemini: 40 };

describe("the account manager's notes", () => {
  it('renders Markdown under the summary, raw HTML as text', async () => {
    const notes =
      '# Heads up\n\nWe **fixed** the FAQ. <script>alert(1)</script>\n\n[site](javascript:alert(1)) [ours](https://agency.example/) ![x](https://tracker.example/p.png)';
    const page = (await summarySection(report(), DEFAULT_STYLE, notes)).toString();
    expect(page).toContain('<strong>fixed</strong>');
    // The notes' headings stay under the summary's: never a section heading of the page.
    expect(page).toContain('<h4>Heads up</h4>');
    expect(page).not.toMatch(/<h[12]>Heads up/);
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // A javascript: link stays text; a web link is a link.
    expect(page).not.toContain('href="javascript:');
    expect(page).toContain('<a href="https://agency.example/">ours</a>');
    expect(page).not.toContain('<img');
    expect(await said(report(), DEFAULT_STYLE, notes)).toContain('From your account manager');
  });

  it('reads <notesDir>/<account>/<brand_key>/<period>.md; a missing file is no section and no error', async () => {
    const dir = h.tempDir();
    expect(notesPath(dir, 'acme', 'ws/1', '2026-11')).toBe(join(dir, 'acme', 'ws%2F1', '2026-11.md'));
    expect(await readNotes(dir, 'acme', 'ws/1', '2026-11')).toBeNull();
    expect(await readNotes(null, 'acme', 'ws/1', '2026-11')).toBeNull();
    mkdirSync(join(dir, 'acme', 'ws%2F1'), { recursive: true });
    writeFileSync(join(dir, 'acme', 'ws%2F1', '2026-11.md'), 'Hello <b>there</b>');
    expect(await readNotes(dir, 'acme', 'ws/1', '2026-11')).toBe('Hello <b>there</b>');
    const without = await renderHtml(report(), DEFAULT_STYLE, { notes: null });
    expect(without).toContain('<section class="summary">');
    expect(without).not.toContain('class="notes"');
  });
});
