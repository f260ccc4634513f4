// Who wins the client's money prompts (src/report/competitors/): per competitor, the money prompts it
// wins at this period's end against the previous period's end, as a chart and its table; where the
// data has no such counts, the section says why and draws no chart.
import { describe, expect, it } from 'vitest';
import { moneyCompetitorsSection } from '../src/report/competitors/section.js';
import { buildReport } from '../src/report/render/report-json.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { AFTER, BEFORE, PERIOD, PREVIOUS, report, workspace } from './helpers/report-workspace.js';

const section = async (r = report(), locale: string | null = null) =>
  (await moneyCompetitorsSection(r, { ...DEFAULT_STYLE, locale })).toString();
/** The section's table rows as text cells. */
const rows = (page: string) =>
  [...page.matchAll(/<tr><td>(.*?)<\/td><\/tr>/g)].map((m) =>
    (m[1] ?? '').split('</td><td>').map((c) => c.replace(/<[^>]+>/g, '')),
  );

describe('who wins the money prompts', () => {
  it('counts each competitor this period against the previous, most first', async () => {
    const r = report();
    expect(r.money_competitors).toEqual({
      missing: null,
      previous_missing: null,
      competitors: [
        { name: 'Acme', won: 2, previous_won: 1 },
        { name: 'Crux', won: 1, previous_won: 0 },
        { name: 'Bolt', won: 0, previous_won: 1 },
      ],
      unnamed: 0,
    });
    const page = await section(r);
    expect(page).toContain('<h3>Who wins your money prompts</h3>');
    expect(page).toContain('<svg');
    // The chart draws both periods: its legend names them; each bar is a mark in the SVG.
    expect(page).toContain('This period');
    expect(page).toContain('Previous period');
    expect(rows(page)).toEqual([
      ['Acme', '2', '1'],
      ['Crux', '1', '0'],
      ['Bolt', '0', '1'],
    ]);
    // One more loss to Bolt: its row says so.
    expect(
      rows(await section(report({ losses: ['Acme', 'Acme', 'Crux', 'Bolt', 'Bolt', 'Bolt'] })))[0],
    ).toEqual(['Bolt', '3', '1']);
  });

  it('in the report language', async () => {
    const page = await section(report(), 'de-DE');
    expect(page).toContain('Wer Ihre kaufrelevanten Prompts gewinnt');
    expect(page).toContain('Dieser Zeitraum');
    expect(page).toContain('Vorzeitraum');
    expect(page).not.toContain('This period');
  });

  it('shows this period alone, saying why, when the previous state is not known', async () => {
    const r = buildReport({
      account: 'acme',
      workspace: { ...workspace(AFTER, { ...BEFORE, money: null }) },
      period: PERIOD,
      previous: PREVIOUS,
      style: DEFAULT_STYLE,
    });
    expect(r.money_competitors.previous_missing).toBe('no_snapshot');
    const page = await section(r);
    expect(page).toContain(
      'No previous-period figures: no buyer-intent data is known at the end of the previous period.',
    );
    expect(rows(page)).toEqual([
      ['Acme', '2'],
      ['Crux', '1'],
    ]);
    expect(page).not.toContain('Previous period');
  });

  it('says why, and draws no chart, where the data has no winners', async () => {
    const cases: [ReturnType<typeof report>, string][] = [
      [report({ money: null }), 'Not shown: no buyer-intent data is known at the end of this period.'],
      [report({ losses: [] }), 'No money prompt is lost to a competitor at the end of this period.'],
      [
        report({ losses: [null, null] }),
        'Not shown: the data does not name the competitors that win the lost money prompts.',
      ],
    ];
    for (const [r, line] of cases) {
      const page = await section(r);
      expect(page, line).toContain(line);
      expect(page, line).not.toContain('<svg');
      expect(page, line).not.toContain('<table');
    }
    // A buyer-intent body not read (no loss count): "not read", never "none lost".
    const ws = workspace();
    const bi = ws.end.buyer_intent!;
    ws.end.buyer_intent = { ...bi, rows: bi.rows.map((row) => ({ ...row, loss_count: null, losses: null })) };
    const unread = buildReport({
      account: 'acme',
      workspace: ws,
      period: PERIOD,
      previous: PREVIOUS,
      style: DEFAULT_STYLE,
    });
    expect(unread.money_competitors.missing).toBe('not_read');
    expect(await section(unread)).toContain(
      'Not shown: the buyer-intent data was sent in a shape this version cannot read.',
    );
  });

  it('counts losses without a winner apart, and the competitors beyond the chart', async () => {
    const many = Array.from({ length: 12 }, (_, i) => `Rival ${String(i).padStart(2, '0')}`);
    const page = await section(report({ losses: [...many, null] }, { losses: [] }));
    expect(rows(page)).toHaveLength(10);
    expect(page).toContain('2 more competitors win fewer and are not shown.');
    expect(page).toContain('1 lost money prompt names no winner and is not counted above.');
  });
});
