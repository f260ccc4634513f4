// GET /brands/{id}/visibility -> visibility_daily, and its model_scores -> visibility_engine_daily.

import { child, f, inspect, obj, type Probe, readList } from './drift-spec.js';
import { baseColumns, explodeScores, requireBrandId } from './rows.js';
import type { LandedRaw, NormaliseResult, TableRow } from './types.js';

export const ENTRY = obj({
  date: f.date,
  overall_score: f.number,
  share_of_voice: f.number,
  model_scores: f.scores,
  mentions: f.integer,
  prompts_tracked: f.integer,
});

export function normaliseVisibility(rec: LandedRaw): NormaliseResult {
  const brandId = requireBrandId(rec);
  const probe: Probe = { endpoint: 'visibility', origin: brandId, drift: [] };
  const rows: TableRow[] = [];
  for (const { value, loc } of readList(rec.body, probe)) {
    const v = inspect(ENTRY, value, probe, loc);
    const common = { ...baseColumns(rec), brand_id: brandId, date: v?.date ?? null };
    rows.push({
      table: 'visibility_daily',
      row: {
        ...common,
        overall_score: v?.overall_score ?? null,
        share_of_voice: v?.share_of_voice ?? null,
        mentions: v?.mentions ?? null,
        prompts_tracked: v?.prompts_tracked ?? null,
        payload: value,
      },
    });
    for (const s of explodeScores(v?.model_scores, probe, child(loc, 'model_scores'))) {
      rows.push({
        table: 'visibility_engine_daily',
        row: { ...common, engine: s.engine, score: s.score, payload: s.payload },
      });
    }
  }
  return { rows, drift: probe.drift };
}
