// The agency overview's figures (docs/reports.md, "Agency overview"): one row per workspace of the
// account from its report of the period (its headline: the period mean of the overall score and its
// change; share of voice), the period's brand events by severity and the relative link to its
// report, largest drop first; and the portfolio's score trend, each day the mean of the clients with a score that day. A figure that is
// missing stays null (the page says "missing"), never 0. Pure.
import { compareText, mean } from '../../history/figures.js';
import { brandKey } from '../../sinks/layout.js';
import type { GoalProgress } from '../goals/goal-shape.js';
import type { ReportModel } from '../model/report-shape.js';
import { headlineOf } from '../summary/headline.js';
import type { EventCounts } from './events.js';
import type { ClientName } from './names.js';
import { type Suffix, suffixes } from './told-apart.js';

/**
 * What the overview reads of a report: kept for every workspace made, so only this much (its
 * period_status: whether the whole book read back from the store is to date, ./book-store.ts).
 */
export type OverviewReport = Pick<
  ReportModel,
  'cover' | 'kpis' | 'comparison' | 'trend' | 'goals' | 'period_status' | 'previous_period'
>;

export const overviewPart = ({
  cover,
  kpis,
  comparison,
  trend,
  goals,
  period_status,
  previous_period,
}: ReportModel): OverviewReport => ({
  cover,
  kpis,
  comparison,
  trend,
  period_status,
  ...(goals === undefined ? {} : { goals }),
  previous_period,
});

export interface OverviewRow {
  /** The account of the row on the whole book (./book.ts); unset on an account's own overview. */
  account?: string;
  brandId: string;
  /** The client's name as its report shows it; null: the data names none. */
  client: string | null;
  /** What tells the client from another of the same name (./told-apart.ts); null: its name does. */
  suffix: Suffix | null;
  /** False: no report of the period was found for the workspace (every figure null). */
  reported: boolean;
  /** The period mean of the overall score (the report's headline figure). */
  score: number | null;
  /** The headline change as shown; null when missing or not comparable (`comparable` says which). */
  delta: number | null;
  comparable: boolean;
  share: number | null;
  shareUnit: ReportModel['trend']['share_of_voice_unit'];
  /** The client's goals as its report states them (../goals/progress.ts); none or empty: no goal, or no report. */
  goals?: readonly GoalProgress[];
  /** The period's events per kind shown; null: not known (no complete run dated within the period). */
  events: EventCounts | null;
  /** Relative to the overview's folder; null when no report page was written. */
  href: string | null;
}

/**
 * From `reports/account=A/period=P/` to `reports/account=A/brand=B/period=P/report.<ext>`: each
 * folder name percent-encoded once more, so a `%` of the stored name (src/sinks/layout.ts brandKey)
 * is a `%` of the file name, not an escape.
 */
export function reportHref(brandId: string, period: string, ext: 'html' | 'pdf'): string {
  const seg = (s: string) => encodeURIComponent(s);
  return `../${seg(`brand=${brandKey(brandId)}`)}/${seg(`period=${period}`)}/report.${ext}`;
}

export interface OverviewItem {
  brandId: string;
  report: OverviewReport | undefined;
  href: string | null;
}

export function overviewRows(
  items: readonly OverviewItem[],
  events: ReadonlyMap<string, EventCounts> | null,
  /** The client's name and domain in the data, for a workspace whose report names none (not made yet). */
  names: ReadonlyMap<string, ClientName> = new Map(),
): OverviewRow[] {
  const clients = items.map((i) => ({
    id: i.brandId,
    name: i.report?.cover.client_name ?? names.get(i.brandId)?.name ?? null,
    domain: i.report?.cover.client_domain ?? names.get(i.brandId)?.domain ?? null,
  }));
  const apart = suffixes(clients);
  const rows = items.map((i, at): OverviewRow => {
    const r = i.report;
    // The one headline change (../summary/headline.ts): the order agrees with each report's summary.
    const h = r === undefined ? undefined : headlineOf(r);
    const comparable = (h?.earlier ?? false) && (h?.comparable ?? false);
    return {
      brandId: i.brandId,
      client: clients[at]?.name ?? null,
      suffix: apart.get(i.brandId) ?? null,
      reported: r !== undefined,
      score: h?.score ?? null,
      delta: h?.delta ?? null,
      comparable,
      share: r?.kpis.share_of_voice.value ?? null,
      shareUnit: r?.trend.share_of_voice_unit ?? 'percent',
      // A report.json of an earlier release has no goals: no goal, as for a client without any.
      goals: r?.goals ?? [],
      events: events === null ? null : (events.get(i.brandId) ?? {}),
      href: r === undefined ? null : i.href,
    };
  });
  return rows.sort((a, b) => byHeadline(a, b) || compareText(a.brandId, b.brandId));
}

/**
 * The overviews' one order (an account's and the whole book's): largest drop first; a row without
 * a change after every row with one, a workspace without a report last; then by name and by what
 * tells a name's clients apart. Each overview breaks the last ties by its own ids.
 */
export function byHeadline(a: OverviewRow, b: OverviewRow): number {
  return (
    (a.delta ?? Number.POSITIVE_INFINITY) - (b.delta ?? Number.POSITIVE_INFINITY) ||
    Number(a.reported === false) - Number(b.reported === false) ||
    compareText(a.client ?? '', b.client ?? '') ||
    compareText(suffixText(a.suffix), suffixText(b.suffix))
  );
}

/** A suffix as text for sorting: domains by name, numbers in order (`(2)` before `(10)`). */
const suffixText = (s: Suffix | null) =>
  s === null ? '' : 'domain' in s ? s.domain : String(s.n).padStart(12, '0');

export interface PortfolioDay {
  date: string;
  score: number | null;
  previous: number | null;
}

/** Each day of the period: the mean overall score of the reports with one that day, and of the previous period's same day. */
export function portfolioTrend(reports: readonly OverviewReport[]): PortfolioDay[] {
  const now = new Map<string, (number | null)[]>();
  const before = new Map<string, (number | null)[]>();
  for (const r of reports)
    for (const d of r.trend.series) {
      now.set(d.date, [...(now.get(d.date) ?? []), d.overall_score]);
      before.set(d.date, [...(before.get(d.date) ?? []), d.previous_overall_score]);
    }
  return [...now.keys()]
    .sort(compareText)
    .map((date) => ({ date, score: mean(now.get(date) ?? []), previous: mean(before.get(date) ?? []) }));
}
