// One summary sentence per goal (docs/reports.md "Executive summary"), after the headline sentence:
// where the client stands against it in words (reached, on or off track, past due, or why that is
// not known), with the figures it stands on: the projection, or the change per day needed and the
// trend's when the date is beyond what the trend can carry. Pure: the page words and formats them (./words.ts).
import type { GoalProgress } from './goal-shape.js';
import type { GoalParam } from './words.js';

export interface GoalSentence {
  /** `_rate`: on or off track judged by the rates, the projection being limited (./progress.ts). */
  key:
    | `goals:sentence.${GoalProgress['status']}`
    | 'goals:sentence.on_track_rate'
    | 'goals:sentence.off_track_rate';
  params: Record<string, GoalParam>;
}

export function goalSentences(goals: readonly GoalProgress[] | undefined): GoalSentence[] {
  return (goals ?? []).map((goal) => {
    const part = (p: GoalParam['part']): GoalParam => ({ kind: 'goal', goal, part: p });
    const tracked = goal.status === 'on_track' || goal.status === 'off_track';
    const byRate = tracked && goal.projection_limited === true;
    const figures: Record<string, GoalParam> =
      goal.status === 'no_value'
        ? {}
        : byRate
          ? { value: part('value'), needed: part('needed'), per_day: part('per_day') }
          : tracked
            ? { value: part('value'), projected: part('projected') }
            : { value: part('value') };
    return {
      key: byRate
        ? `goals:sentence.${goal.status as 'on_track' | 'off_track'}_rate`
        : `goals:sentence.${goal.status}`,
      params: { goal: part('name'), aim: part('aim'), ...figures },
    };
  });
}
