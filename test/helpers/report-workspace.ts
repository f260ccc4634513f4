// One workspace's curated rows for two four-day periods (1-4 and 5-8 October 2026), as the report
// model reads them (src/report/model/account-data.ts WorkspaceData), with each figure a parameter: the
// summary, competitor and overview tests change one figure and watch what the page says.
import type { Row } from '../../src/catalogue/types.js';
import { parseRange, previousPeriod } from '../../src/history/period.js';
import type { WorkspaceData } from '../../src/report/model/account-data.js';
import type { Report } from '../../src/report/model/report-shape.js';
import { buildReport } from '../../src/report/render/report-json.js';
import { DEFAULT_STYLE } from '../../src/report/style.js';

export const PERIOD = parseRange('2026-10-05', '2026-10-08')!;
export const PREVIOUS = previousPeriod(PERIOD);

export interface Side {
  /** The overall score of each of the period's four days (null: none that day). */
  scores: (number | null)[];
  engines: Record<string, number>;
  /** null: no buyer-intent snapshot at the period's end. */
  money: number | null;
  /** Winner name of each lost money prompt (null: a loss that names none). */
  losses: (string | null)[];
  /** Engines with a suspected-false claim. */
  flags: string[];
  /** Titles of the open recommendations, top priority first (null: no title). */
  open: (string | null)[];
}

export const BEFORE: Side = {
  scores: [50, 51, 52, 53.4],
  engines: { chatgpt: 60, gemini: 40 },
  money: 42,
  losses: ['Acme', 'Bolt'],
  flags: [],
  open: ['Add pricing page'],
};
export const AFTER: Side = {
  scores: [52, 50, 49, 47.5],
  engines: { chatgpt: 48.5, gemini: 41 },
  money: 35,
  losses: ['Acme', 'Acme', 'Crux'],
  flags: ['claude'],
  open: ['Publish comparison page', 'Fix schema'],
};

const base = (run: string) => ({
  account: 'acme',
  brand_id: 'b1',
  run_id: run,
  extracted_at: '2026-10-09T04:00:00.000Z',
});

function snapshot(s: Side, run: string, runDate: string): WorkspaceData['end'] {
  const b = base(run);
  const row = (r: Row) => ({ ...b, ...r });
  return {
    brands: { runId: run, runDate, rows: [row({ name: 'Client One', domain: 'one.example' })] },
    recommendations: {
      runId: run,
      runDate,
      rows: s.open.map((title, i) =>
        row({
          recommendation_id: `r${i}-${title}`,
          title,
          status: 'open',
          priority: i === 0 ? 'high' : 'low',
        }),
      ),
    },
    reputation_claims: {
      runId: run,
      runDate,
      rows: s.flags.map((engine, i) =>
        row({ engine, claim_id: `c-${engine}`, claim: `claim ${i}`, flagged: true }),
      ),
    },
    ...(s.money === null
      ? {}
      : {
          buyer_intent: {
            runId: run,
            runDate,
            rows: [
              row({
                window_days: 7,
                money_visibility: s.money,
                loss_count: s.losses.length,
                losses: s.losses.map((name, i) => ({
                  prompt: `best tool ${i}`,
                  engine: 'chatgpt',
                  winner: name === null ? null : { name, domain: `${name.toLowerCase()}.example` },
                })),
              }),
            ],
          },
        }),
  };
}

const days = (from: number) => [0, 1, 2, 3].map((i) => `2026-10-0${from + i}`);

export function workspace(after: Side = AFTER, before: Side = BEFORE, brandId = 'b1'): WorkspaceData {
  const daily = (s: Side, dates: string[], run: string) =>
    dates.map((date, i) => ({
      ...base(run),
      brand_id: brandId,
      date,
      overall_score: s.scores[i] ?? null,
      share_of_voice: 30,
    }));
  const engines = (s: Side, dates: string[], run: string) =>
    dates.flatMap((date) =>
      Object.entries(s.engines).map(([engine, score]) => ({ ...base(run), date, engine, score })),
    );
  const previousEnd = snapshot(before, 'run-1', '2026-10-05');
  return {
    brandId,
    end: snapshot(after, 'run-2', '2026-10-09'),
    previousEnd,
    baseline: previousEnd,
    baselineDate: '2026-10-05',
    daily: {
      visibility_daily: [...daily(before, days(1), 'run-1'), ...daily(after, days(5), 'run-2')],
      visibility_engine_daily: [...engines(before, days(1), 'run-1'), ...engines(after, days(5), 'run-2')],
    },
  };
}

export function report(after: Partial<Side> = {}, before: Partial<Side> = {}): Report {
  return buildReport({
    account: 'acme',
    workspace: workspace({ ...AFTER, ...after }, { ...BEFORE, ...before }),
    period: PERIOD,
    previous: PREVIOUS,
    style: DEFAULT_STYLE,
  });
}
