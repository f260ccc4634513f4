// One summary sentence per goal (docs/reports.md "Executive summary"), after the headline sentence:
// where the client stands against it in words (reached, on or off track, past due, or why that is
// not known), with the figures it stands on. Pure: the page words and formats them (./words.ts).
import type { GoalProgress } from './goal-shape.js';
import type { GoalParam } from './words.js';

export interface GoalSentence {
  key: `goals:sentence.${GoalProgress['status']}`;
  params: Record<string, GoalParam>;
}

export function goalSentences(goals: readonly GoalProgress[] | undefined): GoalSentence[] {
  return (goals ?? []).map((goal) => {
    const part = (p: GoalParam['part']): GoalParam => ({ kind: 'goal', goal, part: p });
    const figures: Record<string, GoalParam> =
      goal.status === 'no_value'
        ? {}
        : goal.status === 'on_track' || goal.status === 'off_track'
          ? { value: part('value'), projected: part('projected') }
          : { value: part('value') };
    return {
      key: `goals:sentence.${goal.status}`,
      params: { goal: part('name'), aim: part('aim'), ...figures },
    };
  });
}
