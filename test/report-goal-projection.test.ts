// How far a goal's trend is carried (docs/reports.md "Goals"): a line stands on the days it was
// fitted to, so it is carried at most HORIZON_FACTOR times those days. A date further off, or a line
// that would leave the figure's range on the way, is judged by the rate instead: the change per day
// the goal needs against the trend's change per day, both shown, the status by the same comparison.
// Never a clamped bound printed as a forecast (a 10-day falling line carried 141 days read "0,0").
import { describe, expect, it } from 'vitest';
import type { GoalConfig } from '../src/config/report-goals.js';
import { summaryValue } from '../src/delivery/mail/report-words.js';
import type { GoalProgress } from '../src/report/goals/goal-shape.js';
import { goalsCell } from '../src/report/goals/overview-cell.js';
import { goalProgress, HORIZON_FACTOR } from '../src/report/goals/progress.js';
import { goalsBlock } from '../src/report/goals/section.js';
import { goalSentences } from '../src/report/goals/sentences.js';
import { KPI_KEYS, type Kpi, type ReportModel } from '../src/report/model/report-shape.js';
import { formattersOf } from '../src/report/render/format.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { sentenceHtml } from '../src/report/summary/render.js';
import { pageText } from './helpers/page-text.js';

type Part = Pick<ReportModel, 'kpis' | 'trend' | 'period' | 'period_status'>;

const kpi = (value: number | null, previous: number | null = null, dates?: [string, string]): Kpi => ({
  value,
  previous,
  delta: value !== null && previous !== null ? value - previous : null,
  comparable: previous !== null,
  coverage: {
    current: { days_with_data: null, days: null, snapshot_date: dates?.[1] ?? null },
    previous: { days_with_data: null, days: null, snapshot_date: dates?.[0] ?? null },
  },
});

const NOV = { label: '2026-11', kind: 'month' as const, from: '2026-11-01', to: '2026-11-30' };

/** November, its first `scores.length` days with data; to date (in progress) when fewer than 30. */
function part(scores: number[], o: { share?: number[]; kpis?: Partial<ReportModel['kpis']> } = {}): Part {
  const n = scores.length;
  const dates = scores.map((_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const kpis = Object.fromEntries(KPI_KEYS.map((k) => [k, kpi(null)])) as ReportModel['kpis'];
  kpis.overall_score_mean = kpi(mean(scores));
  kpis.overall_score_end = kpi(scores.at(-1) ?? null);
  kpis.share_of_voice = kpi(mean(o.share ?? []));
  return {
    period: NOV,
    period_status: { in_progress: n < 30, end: dates.at(-1) as string },
    kpis: { ...kpis, ...o.kpis },
    trend: {
      days: n,
      days_with_data: n,
      share_of_voice_unit: 'percent',
      series: dates.map((date, i) => ({
        date,
        overall_score: scores[i] ?? null,
        share_of_voice: o.share?.[i] ?? null,
        previous_date: '',
        previous_overall_score: null,
        previous_share_of_voice: null,
      })),
      unrecognised: [],
    },
  };
}

// The page of /tmp/briefs/goals-de.png: 1-10 November to date, the score falling, the goal 75 by
// 31 March 2027 (141 days after the 10th). Its least-squares line falls 1.02 a day.
const TEN = [73.5, 72, 70.2, 74.5, 71.9, 67, 69.1, 68.5, 62.3, 65.7];
const SHARE = [41.3, 41.7, 37.1, 40.8, 36.6, 37.3, 36, 40.2, 35.5, 35.8];
const SPRING: GoalConfig = {
  metric: 'overall_score_mean',
  target: 75,
  by: '2027-03-31',
  label: 'Gesamtwert 75',
};
const rising = Array.from({ length: 30 }, (_, i) => 50 + i * 0.5); // 50 .. 64.5, +0.5 a day

const de = formattersOf({ ...DEFAULT_STYLE, locale: 'de-DE' });
const en = formattersOf({ ...DEFAULT_STYLE, locale: 'en-US' });
const table = (goals: GoalProgress[], f = de) => pageText(String(goalsBlock(f, { goals })));
const sentence = async (g: GoalProgress, f = de) => {
  const [s] = goalSentences([g]);
  return pageText(String(await sentenceHtml(s as never, { t: f.t, f, locale: 'de-DE' })));
};

describe("a goal's trend is carried only as far as it stands", () => {
  it('a 10-day line is not carried 141 days: no projection, the rates instead, off track by them', () => {
    const p = goalProgress(part(TEN), SPRING);
    expect(p).toMatchObject({
      days_left: 141,
      trend: { basis: 'daily', days: 10 },
      horizon_days: HORIZON_FACTOR * 10,
      projected: null,
      projection_limited: true,
      status: 'off_track',
    });
    expect(p.value).toBeCloseTo(69.47, 9);
    // (75 - 69.47) / 141 days: what the goal needs; the line falls.
    expect(p.needed_per_day).toBeCloseTo(0.0392, 4);
    expect(p.trend?.per_day).toBeCloseTo(-1.02, 2);
  });

  it('the page says what the goal needs a day and what the trend does, never the clamped 0,0', async () => {
    const p = goalProgress(part(TEN), SPRING);
    const text = table([p]);
    expect(text).toContain(
      `Gesamtwert 75 mindestens 75,0 bis 31. März 2027 (noch 141 Tage) 69,5 braucht +0,04/Tag, Trend −1,02/Tag nicht im Plan`,
    );
    expect(text).not.toMatch(/69,5 0,0/);
    // The note says how far a trend is carried and what is compared beyond.
    expect(text).toContain('das Dreifache');
    expect(await sentence(p)).toMatch(
      /^Gesamtwert 75, Ziel mindestens 75,0 bis 31\. März 2027: nicht im Plan, jetzt 69,5; dafür braucht es \+0,04 pro Tag, der Trend dieses Zeitraums liegt bei −1,02 pro Tag\.$/,
    );
  });

  it('a share of voice states its rates in percentage points; in English too', async () => {
    const p = goalProgress(part(TEN, { share: SHARE }), {
      metric: 'share_of_voice',
      target: 40,
      by: '2027-06-30',
    });
    expect(p).toMatchObject({ projected: null, projection_limited: true, status: 'off_track' });
    expect(table([p])).toMatch(/38,2 % braucht \+0,01 Pp\.\/Tag, Trend −0,\d\d Pp\.\/Tag nicht im Plan/);
    expect(table([p], en)).toMatch(/38\.2% needs \+0\.01 pp\/day, trend −0\.\d\d pp\/day off track/);
  });

  it('beyond the horizon a fast enough trend is on track by its rate', () => {
    // 212 days after 30 November: (90 - 57.25) / 212 = +0.15 a day needed, the line does +0.5.
    const p = goalProgress(part(rising), { metric: 'overall_score_mean', target: 90, by: '2027-06-30' });
    expect(p).toMatchObject({
      projected: null,
      projection_limited: true,
      horizon_days: 90,
      status: 'on_track',
    });
    expect(p.needed_per_day).toBeCloseTo(0.1545, 4);
    expect(table([p])).toContain('braucht +0,15/Tag, Trend +0,50/Tag im Plan');
  });

  it('within the horizon the line is carried and shown, as before', () => {
    const p = goalProgress(part(rising), { metric: 'overall_score_mean', target: 70, by: '2027-01-31' });
    expect(p).toMatchObject({
      days_left: 62,
      projected: 95.5,
      projection_limited: false,
      status: 'on_track',
    });
    expect(table([p])).toContain('57,3 95,5 im Plan');
  });

  it('a line that would leave the range on the way is not shown as 100 or 0: judged by the rate', () => {
    // 89 days on at +0.5 a day from 64.5 is 109: no score is.
    const up = goalProgress(part(rising), { metric: 'overall_score_mean', target: 70, by: '2027-02-27' });
    expect(up).toMatchObject({
      days_left: 89,
      projected: null,
      projection_limited: true,
      status: 'on_track',
    });
    expect(table([up])).not.toContain('100,0');
    // 60 falling 2 a day to 2, carried 89 days: -176.
    const down = goalProgress(part(Array.from({ length: 30 }, (_, i) => 60 - 2 * i)), {
      metric: 'overall_score_mean',
      target: 70,
      by: '2027-02-27',
    });
    expect(down).toMatchObject({ projected: null, projection_limited: true, status: 'off_track' });
    expect(table([down])).toMatch(/braucht \+0,44\/Tag, Trend −2,00\/Tag nicht im Plan/);
  });

  it('a count falling below 0 on the way is judged by the rate, whole counts at two decimals a day', () => {
    const kpis = { open_recommendations: kpi(6, 9, ['2026-10-31', '2026-11-30']) };
    const p = goalProgress(part(rising, { kpis }), {
      metric: 'open_recommendations',
      target: 2,
      by: '2027-01-31',
    });
    expect(p).toMatchObject({ projected: null, projection_limited: true, status: 'on_track' });
    // 6 to 2 in 62 days: -0.0645 a day; the change since the previous state is -0.1.
    expect(table([p])).toContain('braucht −0,06/Tag, Trend −0,10/Tag im Plan');
  });

  it('rates are compared as the page shows them (two decimals): equal as shown is on track', () => {
    // 60 for 29 days, then 60.02: the line rises 0.00013 a day; 60.1 by the end of 2027 (396 days)
    // needs 0.0002 a day. Both read ±0,00 a day (as a delta under the page's precision does):
    // nothing is needed as shown, so on track.
    const p = goalProgress(part(Array.from({ length: 30 }, (_, i) => (i === 29 ? 60.02 : 60))), {
      metric: 'overall_score_end',
      target: 60.1,
      by: '2027-12-31',
    });
    expect(p.projection_limited).toBe(true);
    expect(p.needed_per_day).toBeGreaterThan(p.trend?.per_day ?? 1);
    expect(p.status).toBe('on_track');
    expect(table([p])).toContain('braucht ±0,00/Tag, Trend ±0,00/Tag im Plan');
  });

  it('past due, reached: no rate needed; a report.json without the new fields still reads', async () => {
    const past = goalProgress(part(TEN), { ...SPRING, by: '2026-11-05' });
    expect(past).toMatchObject({ status: 'past_due', needed_per_day: null, projection_limited: false });
    const reached = goalProgress(part(TEN), { ...SPRING, target: 60 });
    expect(reached).toMatchObject({ status: 'reached', needed_per_day: null });
    // An earlier release's goal has no needed_per_day, projection_limited or horizon_days.
    const {
      needed_per_day: _n,
      projection_limited: _l,
      horizon_days: _h,
      ...old
    } = goalProgress(part(TEN), SPRING);
    expect(table([old as GoalProgress])).toContain('69,5 k. A. nicht im Plan');
    const cell = pageText(String(await goalsCell(de, [old as GoalProgress])));
    expect(cell).toBe('nicht im Plan Gesamtwert 75');
  });
});

describe("the mail's summary, from report.json as the worker reads it back", () => {
  it('says the rates in plain text; an earlier release report.json keeps its projection sentence', () => {
    const limited = JSON.parse(JSON.stringify(goalProgress(part(TEN), SPRING))) as GoalProgress;
    const mail = summaryValue(goalSentences([limited]), { locale: 'de-DE' });
    expect(mail.text).toBe(
      'Gesamtwert 75, Ziel mindestens 75,0 bis 31. März 2027: nicht im Plan, jetzt 69,5; dafür braucht es +0,04 pro Tag, der Trend dieses Zeitraums liegt bei −1,02 pro Tag.',
    );
    // Written before this release: no projection_limited, the projection as it was stated.
    const { needed_per_day: _n, projection_limited: _l, horizon_days: _h, ...old } = limited;
    const before = summaryValue(goalSentences([{ ...old, projected: 0 } as GoalProgress]), {
      locale: 'de-DE',
    });
    expect(before.text).toContain(
      'nicht im Plan, jetzt 69,5 und laut Trend dieses Zeitraums 0,0 zum Termin.',
    );
  });
});
