// One headline rule (issue #39, cases 3 and 7): the summary's first sentence, the mail subject, the
// overview's order and the cards tell the same change, the period mean of the overall score against
// the previous period's; the last day's score is named as such. Sentences claim only what was
// compared; a change under the page's precision is neutral; a delta on the page is the difference of
// the values shown. Figures shaped per day (test/helpers/report-workspace.ts); the page as a reader
// sees it (tags gone).
import { describe, expect, it } from 'vitest';
import { overviewRows } from '../src/report/overview/rows.js';
import { renderHtml } from '../src/report/render/html.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { headlineOf } from '../src/report/summary/headline.js';
import { summarySection } from '../src/report/summary/section.js';
import { pageText } from './helpers/page-text.js';
import { report } from './helpers/report-workspace.js';

const read = pageText;

// Previous period 50, 51, 52, 53.4 (mean 51.6, last day 53.4). This one: the mean rose to 56.3 while
// the last day fell to 45.
const ROSE_LAST_DAY_FELL = { scores: [60, 60, 60, 45.2] };

describe('one headline rule', () => {
  it('a period whose last day fell while the mean rose: summary, cards and headline say it rose', async () => {
    const r = report(ROSE_LAST_DAY_FELL);
    expect(r.kpis.overall_score_end.delta).toBeLessThan(0);
    const summary = read((await summarySection(r, DEFAULT_STYLE, null)).toString());
    expect(summary).toContain('rose from 51.6 to 56.3 (+4.7 points)');
    expect(summary).not.toMatch(/score[^.]* fell/);
    const page = read(await renderHtml(r, DEFAULT_STYLE));
    const cards = page.slice(page.indexOf('Key figures'), page.indexOf('Daily figures'));
    // The first card is the period mean with the same change; the last day's score says its day.
    expect(cards).toMatch(/^Key figures Overall score \(period mean\) 56\.3 ▲ \+4\.7 pts vs 51\.6/);
    expect(cards).toContain('Overall score on 8 October 2026 45.2 ▼ −8.2 pts vs 53.4');
    expect(headlineOf(r)).toEqual({
      score: 56.3,
      previous: 51.6,
      delta: 4.7,
      earlier: true,
      comparable: true,
    });
  });

  it('the overview puts the largest drop of the period mean first, whatever the last day did', () => {
    const rose = report(ROSE_LAST_DAY_FELL);
    // The mean fell (52.0 -> 50.5) while the last day rose (53.4 -> 60).
    const fell = report({ scores: [45, 45, 52, 60] });
    expect(fell.kpis.overall_score_end.delta).toBeGreaterThan(0);
    const rows = overviewRows(
      [
        { brandId: 'rose', report: rose, href: null },
        { brandId: 'fell', report: fell, href: null },
      ],
      null,
    );
    expect(rows.map((x) => [x.brandId, x.score, x.delta])).toEqual([
      ['fell', 50.5, -1.1],
      ['rose', 56.3, 4.7],
    ]);
  });
});
