// The agency overview's goal column (docs/reports.md "Agency overview"): per client each goal's
// status in words and colour, with the goal's name under it; "no goal" for a client without one.
// The column is there only when some client of the account has a goal.
import type { Formatters } from '../render/format.js';
import { type Html, html } from '../render/html-parts.js';
import type { GoalProgress } from './goal-shape.js';
import { goalName, statusWord } from './words.js';

export const anyGoal = (rows: readonly { goals?: readonly GoalProgress[] | undefined }[]): boolean =>
  rows.some((r) => (r.goals?.length ?? 0) > 0);

export function goalsCell(f: Formatters, goals: readonly GoalProgress[] = []): Html {
  if (goals.length === 0) return html`<span class="na">${f.t('goals:overview.none')}</span>`;
  // Spaces between the blocks: the words stay apart when the page is read as text (pdftotext, a reader).
  return html`${goals.map((g, i) => html`${i ? ' ' : ''}<span class="goal">${statusWord(f, g)} <span class="apart">${goalName(f, g)}</span></span>`)}`;
}
