// GET /brands/{id}/recommendations?status=all -> recommendations (one snapshot per run).

import { f, inspect, obj, type Probe, readList } from './drift-spec.js';
import { recordId, requireBrandId, snapshotColumns } from './rows.js';
import type { LandedRaw, NormaliseResult } from './types.js';

export const RECOMMENDATION = obj({
  id: f.string,
  title: f.string,
  description: f.string,
  category: f.string,
  priority: f.string,
  status: f.string,
  impact_score: f.number,
  created_at: f.timestamp,
  updated_at: f.timestamp,
});

export function normaliseRecommendations(rec: LandedRaw): NormaliseResult {
  const brandId = requireBrandId(rec);
  const probe: Probe = { endpoint: 'recommendations', origin: brandId, drift: [] };
  const rows = readList(rec.body, probe).map(({ value, loc }) => {
    const v = inspect(RECOMMENDATION, value, probe, loc);
    return {
      table: 'recommendations',
      row: {
        ...snapshotColumns(rec, brandId),
        recommendation_id: recordId(value),
        title: v?.title ?? null,
        description: v?.description ?? null,
        category: v?.category ?? null,
        priority: v?.priority ?? null,
        status: v?.status ?? null,
        impact_score: v?.impact_score ?? null,
        created_at: v?.created_at ?? null,
        updated_at: v?.updated_at ?? null,
        payload: value,
      },
    };
  });
  return { rows, drift: probe.drift };
}
