// The executive summary's sentences, chosen from the report's figures by fixed rules (docs/reports.md,
// "Executive summary"): where the overall score went (the one headline change, ./headline.ts), its
// main reasons (the biggest engine mover, new suspected-false claims, money prompts lost), and the
// next step (the top open recommendation); a first report claims no change. Each sentence is a
// catalogue key of the `summary` area with its figures as typed parameters; the page words and
// formats them in its locale (./render.ts). A figure that is missing gets a sentence that says so,
// never a 0. Changes are read from the values as the page shows them. Same report, same sentences.
// Pure.

import type { Period } from '../../history/period.js';
import { goalSentences } from '../goals/sentences.js';
import type { GoalParam } from '../goals/words.js';
import type { ReportModel } from '../model/report-shape.js';
import { shownDelta } from '../render/format.js';
import { type Headline, headlineOf } from './headline.js';

/** A figure or a name as the sentence cites it; the renderer formats each kind in the locale. */
export type Param =
  | { kind: 'score'; value: number }
  | { kind: 'delta'; value: number }
  | { kind: 'count'; value: number }
  | { kind: 'engine'; value: string }
  | { kind: 'engines'; value: string[] }
  | { kind: 'text'; value: string }
  | GoalParam
  | { kind: 'period'; value: Period }
  | { kind: 'day'; value: string };

export interface Sentence {
  /** A key of the `summary` catalogue area, or a goal's `goals:sentence.<status>`. */
  key: string;
  /** Picks the plural form (`_one`, `_other`, ...). */
  count?: number;
  params: Record<string, Param>;
}

/** At most this many reason sentences: with the score and the next step, five sentences at most. */
export const MAX_REASONS = 3;

const score = (value: number): Param => ({ kind: 'score', value });
const deltaOf = (value: number): Param => ({ kind: 'delta', value });
const count = (value: number): Param => ({ kind: 'count', value });
/** The direction a change reads on the page, from the values as shown: 78.34 to 78.26 is no move. */
const shown = (after: number | null, before: number | null) => Math.sign(shownDelta(after, before) ?? 0);

function scoreSentence(h: Headline): Sentence {
  if (h.score === null) return { key: 'score_missing', params: {} };
  if (h.delta === null || h.previous === null)
    return { key: 'score_no_previous', params: { after: score(h.score) } };
  const dir = Math.sign(h.delta);
  const params = { before: score(h.previous), after: score(h.score), delta: deltaOf(h.delta) };
  return { key: dir > 0 ? 'score_up' : dir < 0 ? 'score_down' : 'score_flat', params };
}

interface Reason {
  sentence: Sentence;
  /** Bad news (-1), good news (1): a reason in the score's own direction comes first. */
  direction: number;
}

function reasons(r: ReportModel): Reason[] {
  const out: Reason[] = [];
  const mover = r.what_changed.engine_movers.find((m) => shown(m.after, m.before) !== 0);
  if (mover)
    out.push({
      direction: shown(mover.after, mover.before),
      sentence: {
        key: 'engine_moved',
        params: {
          engine: { kind: 'engine', value: mover.engine },
          before: score(mover.before),
          after: score(mover.after),
          delta: deltaOf(shownDelta(mover.after, mover.before) ?? 0),
        },
      },
    });
  const flags = r.what_changed.new_flags;
  if (flags.length > 0) {
    const engines = [...new Set(flags.map((x) => x.engine))];
    out.push({
      direction: -1,
      sentence: {
        key: 'flags_new',
        count: flags.length,
        params: { n: count(flags.length), engines: { kind: 'engines', value: engines } },
      },
    });
  }
  const money = r.kpis.money_visibility;
  if (money.value === null) out.push({ direction: -1, sentence: { key: 'money_missing', params: {} } });
  else if (
    r.comparison.earlier_period &&
    money.comparable &&
    money.previous !== null &&
    money.delta !== null &&
    shown(money.value, money.previous) < 0
  ) {
    const top = r.money_competitors.missing === null ? r.money_competitors.competitors[0] : undefined;
    const params = {
      before: score(money.previous),
      after: score(money.value),
      delta: deltaOf(shownDelta(money.value, money.previous) ?? 0),
    };
    out.push({
      direction: -1,
      sentence: top
        ? {
            key: 'money_lost_to',
            count: top.won,
            params: { ...params, competitor: { kind: 'text', value: top.name }, n: count(top.won) },
          }
        : { key: 'money_lost', params },
    });
  }
  return out;
}

/**
 * Three to five sentences: the score, one to three reasons, the next step; with goals, one sentence
 * per goal right after the score (the headline stays first: design.md section 9).
 */
export function summarySentences(r: ReportModel): Sentence[] {
  const [first, ...rest] = withoutGoals(r);
  return [first as Sentence, ...goalSentences(r.goals), ...rest];
}

function withoutGoals(r: ReportModel): Sentence[] {
  const h = headlineOf(r);
  const first = scoreSentence(h);
  const dir = Math.sign(h.delta ?? 0);
  // A first report compared nothing: it says so and what stands now, never that nothing moved.
  // Year on year before the history reaches back, the score's sentence names no previous period:
  // the next one says which comparison is not possible yet.
  if (!r.comparison.earlier_period) {
    const score =
      r.comparison.basis === 'year' && first.key === 'score_no_previous'
        ? { ...first, key: 'score_only' }
        : first;
    return [score, ...firstReport(r), nextStep(r)];
  }
  // Year on year, the headline's change is against last year's period: the summary says so at once.
  const basis: Sentence[] =
    r.comparison.basis === 'year'
      ? [{ key: 'year_basis', params: { period: { kind: 'period', value: r.previous_period } } }]
      : [];
  // Stable sort: within each group the fixed order above (engine, claims, money).
  const found = reasons(r);
  const ordered =
    dir === 0 ? found : [...found].sort((a, b) => Number(b.direction === dir) - Number(a.direction === dir));
  const because = ordered.slice(0, MAX_REASONS).map((x) => x.sentence);
  if (because.length === 0)
    because.push({ key: allCompared(r) ? 'no_reason' : 'no_reason_partial', params: {} });
  return [first, ...basis, ...because, nextStep(r)];
}

/**
 * Whether "no engine moved, no claim appeared, money prompts did not fall" stands: an engine
 * compared, the claims compared with an earlier state ("what changed" has one and read them), the
 * money-prompt visibility compared. Else the summary says not everything could be compared.
 */
function allCompared(r: ReportModel): boolean {
  const money = r.kpis.money_visibility;
  return (
    r.engines.some((e) => e.comparable) &&
    r.what_changed.basis === 'data' &&
    r.reputation.not_available === null &&
    money.comparable &&
    money.value !== null &&
    money.previous !== null
  );
}

/** A first report's sentences between the score and the next step: what stands, no change claimed. */
function firstReport(r: ReportModel): Sentence[] {
  const begins = r.comparison.history_begins ?? null;
  // Year on year before the history reaches back: not a first report, a comparison not yet possible.
  const out: Sentence[] = [
    begins === null
      ? { key: 'first_report', params: {} }
      : {
          key: 'year_no_history',
          params: {
            period: { kind: 'period', value: r.previous_period },
            day: { kind: 'day', value: begins },
          },
        },
  ];
  const flags = r.reputation.not_available === null ? r.reputation.suspected_false : [];
  if (flags.length > 0) {
    const engines = [...new Set(flags.map((x) => x.engine))];
    out.push({
      key: 'flags_listed',
      count: flags.length,
      params: { n: count(flags.length), engines: { kind: 'engines', value: engines } },
    });
  }
  if (r.kpis.money_visibility.value === null) out.push({ key: 'money_missing', params: {} });
  return out;
}

function nextStep(r: ReportModel): Sentence {
  if (r.kpis.open_recommendations.value === null && r.recommendations.open.length === 0)
    return { key: 'next_step_missing', params: {} };
  const top = r.recommendations.open[0];
  if (!top) return { key: 'next_step_none', params: {} };
  const n = r.recommendations.open.length;
  return top.title === null
    ? { key: 'next_step_untitled', count: n, params: { n: count(n) } }
    : { key: 'next_step', count: n, params: { title: { kind: 'text', value: top.title }, n: count(n) } };
}
