// `npm run demo`'s goals (docs/reports.md "Goals"): after the first reports, two clients get goals
// in the demo's config, one that this period's trend reaches and one it does not, chosen from their
// report.json with the same progress rule the reports use (the demo's data depends on today's date,
// so fixed targets could land either way); then their reports are made again with the goals.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { GoalConfig } from '../src/config/report-goals.js';
import { goalProgress } from '../src/report/goals/progress.js';
import type { Report } from '../src/report/model/report-shape.js';
import { addDays } from '../src/util/time.js';

const round = (n: number) => Math.round(n);

/** Goals to try on a client: first ones a rising or improving figure reaches, then ones too steep to. */
function candidates(r: Report, tonight: string): { on: GoalConfig[]; off: GoalConfig[] } {
  const far = addDays(tonight, 120);
  const soon = addDays(tonight, 14);
  const k = r.kpis;
  const on: GoalConfig[] = [];
  const off: GoalConfig[] = [];
  const score = k.overall_score_mean.value;
  const share = k.share_of_voice.value;
  const recs = k.open_recommendations.value;
  if (score !== null) {
    on.push({
      metric: 'overall_score_mean',
      target: Math.min(100, round(score) + 3),
      by: far,
      label: 'Score up by spring',
    });
    off.push({
      metric: 'overall_score_mean',
      target: Math.min(100, round(score) + 15),
      by: soon,
      label: 'Score +15 in two weeks',
    });
  }
  if (share !== null && r.trend.share_of_voice_unit === 'percent')
    on.push({ metric: 'share_of_voice', target: Math.min(100, round(share) + 2), by: far });
  if (recs !== null && recs > 0)
    on.push({
      metric: 'open_recommendations',
      target: recs - 1,
      by: far,
      label: 'Fewer open recommendations',
    });
  return { on, off };
}

/**
 * From the reports made (`folders`: workspace id -> its report folder), goals for two clients: one
 * on track, one off track, as far as the data allows. Writes them into the config; returns the ids.
 */
export function writeDemoGoals(
  configPath: string,
  folders: ReadonlyMap<string, string>,
  tonight: string,
): string[] {
  const picked = new Map<string, GoalConfig>();
  const read = (id: string) =>
    JSON.parse(readFileSync(join(folders.get(id) as string, 'report.json'), 'utf8')) as Report;
  for (const want of ['on_track', 'off_track'] as const) {
    for (const id of folders.keys()) {
      if (picked.has(id)) continue;
      const r = read(id);
      const c = candidates(r, tonight);
      const goal = (want === 'on_track' ? c.on : c.off).find((g) => goalProgress(r, g).status === want);
      if (goal) {
        picked.set(id, goal);
        break;
      }
    }
  }
  const doc = parse(readFileSync(configPath, 'utf8')) as { accounts: Record<string, unknown>[] };
  const account = doc.accounts[0] as Record<string, unknown>;
  account.reports = {
    workspaces: Object.fromEntries([...picked].map(([id, goal]) => [id, { goals: [goal] }])),
  };
  // yaml keeps the generated comment line at the top.
  const head = readFileSync(configPath, 'utf8').split('\n')[0] ?? '';
  writeFileSync(configPath, `${head}\n${stringify(doc)}`);
  return [...picked.keys()];
}
