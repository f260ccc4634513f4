// The executive summary's sentences, chosen from the report's figures by fixed rules (docs/reports.md,
// "Executive summary"): where the overall score went, its main reasons (the biggest engine mover, new
// suspected-false claims, money prompts lost), and the next step (the top open recommendation). Each
// sentence is a catalogue key of the `summary` area with its figures as typed parameters; the page
// words and formats them in its locale (./render.ts). A figure that is missing gets a sentence that
// says so, never a 0. Same report, same sentences. Pure.

import type { Kpi, ReportModel } from '../model/report-shape.js';
import { oneDecimal } from '../render/format.js';

/** A figure or a name as the sentence cites it; the renderer formats each kind in the locale. */
export type Param =
  | { kind: 'score'; value: number }
  | { kind: 'delta'; value: number }
  | { kind: 'count'; value: number }
  | { kind: 'engine'; value: string }
  | { kind: 'engines'; value: string[] }
  | { kind: 'text'; value: string };

export interface Sentence {
  /** A key of the `summary` catalogue area. */
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
/** The direction a delta reads on the page (one decimal): -0.04 is no move. */
const shown = (d: number) => Math.sign(oneDecimal(d));

function scoreSentence(k: Kpi, earlier: boolean): Sentence {
  if (k.value === null) return { key: 'score_missing', params: {} };
  if (!earlier || !k.comparable || k.delta === null || k.previous === null)
    return { key: 'score_no_previous', params: { after: score(k.value) } };
  const dir = shown(k.delta);
  const params = { before: score(k.previous), after: score(k.value), delta: deltaOf(k.delta) };
  return { key: dir > 0 ? 'score_up' : dir < 0 ? 'score_down' : 'score_flat', params };
}

interface Reason {
  sentence: Sentence;
  /** Bad news (-1), good news (1): a reason in the score's own direction comes first. */
  direction: number;
}

function reasons(r: ReportModel): Reason[] {
  const out: Reason[] = [];
  const mover = r.what_changed.engine_movers.find((m) => shown(m.delta) !== 0);
  if (mover)
    out.push({
      direction: shown(mover.delta),
      sentence: {
        key: 'engine_moved',
        params: {
          engine: { kind: 'engine', value: mover.engine },
          before: score(mover.before),
          after: score(mover.after),
          delta: deltaOf(mover.delta),
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
    shown(money.delta) < 0
  ) {
    const top = r.money_competitors.missing === null ? r.money_competitors.competitors[0] : undefined;
    const params = { before: score(money.previous), after: score(money.value), delta: deltaOf(money.delta) };
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

/** Three to five sentences: the score, one to three reasons, the next step. */
export function summarySentences(r: ReportModel): Sentence[] {
  const k = r.kpis.overall_score_end;
  const first = scoreSentence(k, r.comparison.earlier_period);
  const dir = k.delta === null || !k.comparable ? 0 : shown(k.delta);
  // Stable sort: within each group the fixed order above (engine, claims, money).
  const found = reasons(r);
  const ordered =
    dir === 0 ? found : [...found].sort((a, b) => Number(b.direction === dir) - Number(a.direction === dir));
  const because = ordered.slice(0, MAX_REASONS).map((x) => x.sentence);
  if (because.length === 0) because.push({ key: 'no_reason', params: {} });
  return [first, ...because, nextStep(r)];
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
