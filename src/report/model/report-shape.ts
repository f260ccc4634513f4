// The report model and the shape of report.json (docs/reports.md documents every field). The model
// (`ReportModel`) is what ./model.ts builds from the curated rows and the renderers read: numbers and
// codes only, no sentence (why a comparison does not stand follows from its sides: ./reason-codes.ts).
// report.json (`Report`) is the model with its English words added by ../render/report-json.ts, key
// for key where docs/reports.md has them. A value that is missing or drifted is null, never 0.

import type { KpiKey } from '../../config/kpi-keys.js';
import type { Changes } from '../../history/changes.js';
import type { Side } from '../../history/comparison.js';
import type { CompareBasis, Period } from '../../history/period.js';
import type { Loss } from '../../history/snapshot.js';
import type { MoneyCompetitors } from '../competitors/money-competitors.js';
import type { CompetitorTrend } from '../competitors/trend.js';
import type { GoalProgress } from '../goals/goal-shape.js';
import type { ChangeLine } from './change-lines.js';
import type { NotAvailable } from './not-read.js';
import type { SnapshotSection, SnapshotShown } from './snapshots-shown.js';
import type { Unrecognised } from './unrecognised.js';

/**
 * 2: each Kpi and engine row says what it stands on (`comparable`, `reason`, `coverage`), and the
 * report has `period_status`, `comparison`, `revisions` and `restated`; `what_changed.basis` is
 * never 'previous report' (docs/reports.md). The previous report.json of every earlier version is
 * read (./previous-report.ts).
 */
export const MODEL_VERSION = 2;

export interface Kpi {
  value: number | null;
  previous: number | null;
  /**
   * value - previous, in points (percentage points for shares); null when either is missing or the
   * two are not comparable.
   */
  delta: number | null;
  /** False: the previous side is too thin or too old to compare with (./reason-codes.ts says why). */
  comparable: boolean;
  /** What each side stands on: days with data (daily figures) or the snapshot's run date. */
  coverage: { current: Side; previous: Side };
}

/** The KPIs, in report.json's order: the config names them too, so they are kept below it. */
export { KPI_KEYS, type KpiKey } from '../../config/kpi-keys.js';

/** A figure of the previous period that the previous report.json stated otherwise. */
export interface Revision {
  /** The Kpi key, or `engine:<name>` for an engine's mean. */
  figure: string;
  period: string;
  was: number | null;
  now: number | null;
}

export interface TrendDay {
  date: string;
  overall_score: number | null;
  share_of_voice: number | null;
  /** The same day of the previous period (day 1 with day 1). */
  previous_date: string;
  previous_overall_score: number | null;
  previous_share_of_voice: number | null;
}

export interface EngineScore {
  engine: string;
  /** The period mean of the engine's daily scores. */
  score: number | null;
  /** The engine's latest score from GET /brands (`latest_score.model_scores`) at the period's end. */
  latest: number | null;
  previous: number | null;
  delta: number | null;
  /** False when the previous period's data on the engine is too thin; delta is then null. */
  comparable: boolean;
  /** The days with data the comparison stands on (./reason-codes.ts reads why from these). */
  coverage: { current: Side; previous: Side };
}

export interface Recommendation {
  id: string;
  title: string | null;
  priority: string | null;
  category: string | null;
  status: string | null;
  impact_score: number | null;
  updated_at: string | null;
}

export interface Claim {
  engine: string;
  claim_id: string;
  claim: string | null;
  sentiment: string | null;
  flag_reason: string | null;
}

export interface Conflict {
  id: string;
  topic: string | null;
  engines: string[];
  description: string | null;
}

export interface ReportModel {
  model_version: number;
  account: string;
  brand_id: string;
  period: Period;
  previous_period: Period;
  /**
   * in_progress: no complete run is dated after the period's last day; `end` is then its newest day
   * with data.
   */
  period_status: { in_progress: boolean; end: string };
  /**
   * earlier_period: false when the previous period has no data at all (a workspace's first report);
   * the page then says so once, and no card shows a previous value.
   */
  /**
   * `basis`: what the period is compared with, `previous` (the period before) or `year` (the same
   * period a year earlier; `previous_period` is then that one). `history_begins`: on `year`, the
   * first day the complete runs hold when none reaches into the period compared with (not
   * comparable: the history does not reach back); else null. A report.json without them (before
   * #42) reads as `previous`, null.
   */
  comparison: { earlier_period: boolean; basis: CompareBasis; history_begins: string | null };
  /** Previous-period figures that the previous report.json stated otherwise; the report keeps today's. */
  revisions: Revision[];
  /**
   * Previous-period figures that an earlier release's report.json stated otherwise because a rule
   * changed since (./compare.ts RULE_CHANGED), not the data: the page says so once.
   */
  restated: Revision[];
  cover: {
    client_name: string | null;
    client_domain: string | null;
    agency_name: string | null;
    /** Newest extracted_at of every row used; null when no row was. */
    data_as_of: string | null;
  };
  kpis: Record<KpiKey, Kpi>;
  /**
   * How the client stands against each of its goals (`reports.goals`, ../goals/progress.ts), in the
   * config's order; absent when it has none, and in a report.json of an earlier release.
   */
  goals?: GoalProgress[];
  trend: {
    days: number;
    days_with_data: number;
    /** `fraction` when every share of voice of both periods is between 0 and 1 (the page shows ×100 %). */
    share_of_voice_unit: 'percent' | 'fraction';
    series: TrendDay[];
    unrecognised: Unrecognised[];
  };
  engines: EngineScore[];
  buyer_intent: {
    window_days: number | null;
    money_visibility: number | null;
    informational_visibility: number | null;
    visibility_gap: number | null;
    money_prompt_count: number | null;
    informational_prompt_count: number | null;
    losses: Loss[];
    top_competitors: { name: string; losses: number }[];
    why_you_lose: { summary: string | null; reasons: string[]; generated_at: string | null };
    /** Set when the losses were sent in a shape not recognised: they read "not available". */
    not_available: NotAvailable | null;
    unrecognised: Unrecognised[];
  };
  /** Who wins the money prompts, this period's end against the previous period's (docs/reports.md). */
  money_competitors: MoneyCompetitors;
  /** The share of money prompts each top competitor and the brand win over the last six periods. */
  competitor_trend: CompetitorTrend;
  recommendations: {
    open: Recommendation[];
    closed_in_period: Recommendation[];
    unrecognised: Unrecognised[];
  };
  reputation: {
    suspected_false: Claim[];
    conflicts: Conflict[];
    claims_per_engine: { engine: string; claims: number; suspected_false: number }[];
    /** Set when the claims were sent in a shape not recognised: claim figures read "not available". */
    not_available: NotAvailable | null;
    unrecognised: Unrecognised[];
  };
  what_changed: {
    /**
     * What the state was compared with: 'data', the state at the previous period's end (the same
     * comparison as the KPIs, src/history/comparison.ts), or the oldest other run within the period;
     * 'none': no earlier run.
     */
    basis: 'data' | 'none';
    /** The run date of the state compared with; null for none. */
    since: string | null;
    /** The lines of the page's "what changed", each with whether it is good or bad news. */
    lines: ChangeLine[];
  } & Changes;
  /**
   * Which state each snapshot section shows: its run date and whether it is the state at the
   * period's end, the newest before it, the first known after it, or none (./snapshots-shown.ts).
   */
  snapshots: Record<SnapshotSection, SnapshotShown>;
  /** The complete runs whose rows the report used, oldest first. */
  runs: string[];
}

/** A KPI or an engine row as report.json has it: with `reason` in words, before `coverage`. */
type Worded<T extends { coverage: unknown }> = Omit<T, 'coverage'> & {
  /** Why the comparison does not stand, in English; null when it does. */
  reason: string | null;
  coverage: T['coverage'];
};

/**
 * report.json: the model with its English words (../render/report-json.ts). A superset of the
 * model, so a report.json read back renders as the model does.
 */
export interface Report
  extends Omit<
    ReportModel,
    'period_status' | 'comparison' | 'revisions' | 'restated' | 'kpis' | 'trend' | 'engines'
  > {
  /** `title`: `1-28 November 2026, month to date`. */
  period_status: ReportModel['period_status'] & { title: string };
  /** `note`: the first report's "there is no earlier period ..." once; null otherwise. */
  comparison: ReportModel['comparison'] & { note: string | null };
  /** `note`: `revised since the last report: October's mean was 45.9, now 45.44`. */
  revisions: (Revision & { note: string })[];
  /** `note`: `follows the new period rule: October's money-prompt visibility was 23.7 in the last report, now 26`. */
  restated: (Revision & { note: string })[];
  kpis: Record<KpiKey, Worded<Kpi>>;
  /** `coverage`: `30 of 30 days`. */
  trend: Omit<ReportModel['trend'], 'days' | 'days_with_data'> & {
    days: number;
    days_with_data: number;
    coverage: string;
  };
  engines: Worded<EngineScore>[];
  /**
   * The account manager's note of the period as its Markdown file says it (src/report/summary/notes.ts),
   * for the mail; absent when there is none (and in a report.json written before it was kept).
   */
  manager_note?: string;
}
