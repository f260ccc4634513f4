// A client's goals (`reports.goals`, docs/reports.md "Goals"): which report figure, the target and the
// day it is due. Checked at load so a typo in a metric or an impossible target stops the config
// (exit 78) naming the key, instead of a report that silently shows no goal. Each metric is a key of
// the report's KPIs (./kpi-keys.ts, the one list the report's model re-exports).
import { z } from 'zod';
import { hasControlCharacter } from '../util/terminal.js';
import { KPI_KEYS, type KpiKey } from './kpi-keys.js';

/** The figures a goal can be set on: the report's KPI keys, in their order. */
export const GOAL_METRICS = KPI_KEYS;
export type GoalMetric = KpiKey;

/** Counts of problems: a goal on one is reached at or below its target, and is a whole number. */
export const FEWER_IS_BETTER: readonly GoalMetric[] = [
  'visibility_gap',
  'open_recommendations',
  'suspected_false_claims',
  'engine_conflicts',
];
/** Counts: whole numbers, a target and the page's figure alike. */
export const COUNTS: readonly GoalMetric[] = [
  'open_recommendations',
  'suspected_false_claims',
  'engine_conflicts',
];

/** The range a metric's figure can take (share of voice in percent): targets and projections stay in it. */
export function metricRange(metric: GoalMetric): [number, number] {
  if (COUNTS.includes(metric)) return [0, Number.POSITIVE_INFINITY];
  return metric === 'visibility_gap' ? [-100, 100] : [0, 100];
}

/** At most this many goals per client: a page and an overview cell stay readable. */
const MAX_GOALS = 5;

/** What a target may be, per metric: scores and shares (in percent) 0-100, the gap ±100, counts whole. */
function targetProblem(metric: GoalMetric, target: number): string | null {
  if (COUNTS.includes(metric))
    return Number.isInteger(target) && target >= 0
      ? null
      : `expected a whole number of 0 or more for ${metric}`;
  if (metric === 'visibility_gap')
    return target >= -100 && target <= 100
      ? null
      : 'expected a number between -100 and 100 for visibility_gap';
  if (metric === 'share_of_voice')
    return target >= 0 && target <= 100
      ? null
      : 'expected a share of voice in percent between 0 and 100 (35 for 35 %)';
  return target >= 0 && target <= 100 ? null : `expected a number between 0 and 100 for ${metric}`;
}

/** A real calendar day, YYYY-MM-DD (2027-02-30 is not one). */
function isDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

const numberish = (v: unknown) => (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v);

const GoalSchema = z
  .strictObject(
    {
      metric: z.enum(GOAL_METRICS, { error: `expected one of ${GOAL_METRICS.join(', ')}` }),
      target: z.preprocess(
        numberish,
        z.number({
          error: (i) => (i.input === undefined ? 'required: expected a number' : 'expected a number'),
        }),
      ),
      by: z
        .string({
          error: (i) =>
            i.input === undefined ? 'required: expected a day as YYYY-MM-DD' : 'expected a day as YYYY-MM-DD',
        })
        .refine(isDay, { error: 'expected a real day as YYYY-MM-DD, such as 2027-03-31' }),
      /** The goal's name on the page, in the agency's words; without it the metric's name. */
      label: z
        .string({ error: 'expected a short text' })
        .min(1, { error: 'expected a short text' })
        .max(80, { error: 'expected at most 80 characters' })
        .refine((s) => !hasControlCharacter(s), { error: 'expected text without control characters' })
        .optional(),
    },
    { error: 'expected a mapping with metric, target, by and optionally label' },
  )
  .superRefine((g, ctx) => {
    const problem = targetProblem(g.metric, g.target);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['target'], message: problem });
  });

/** `reports.goals`: a level's list replaces the list of the level above (a workspace's its account's). */
export const GoalsSchema = z
  .array(GoalSchema, { error: 'expected a list of goals, each { metric, target, by }' })
  .max(MAX_GOALS, { error: `expected at most ${MAX_GOALS} goals per client` });

export type GoalConfig = z.output<typeof GoalSchema>;
