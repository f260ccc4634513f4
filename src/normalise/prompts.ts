// GET /brands/{id}/prompts -> prompts (one snapshot per run: positions change daily).

import { f, inspect, obj, type Probe, readList } from './drift-spec.js';
import { recordId, requireBrandId, snapshotColumns } from './rows.js';
import type { LandedRaw, NormaliseResult } from './types.js';

const PROMPT = obj({
  id: f.string,
  text: f.string,
  intent: f.string,
  engines: f.strings,
  created_at: f.timestamp,
  latest_position: f.integer,
  mentioned: f.boolean,
});

export function normalisePrompts(rec: LandedRaw): NormaliseResult {
  const brandId = requireBrandId(rec);
  const probe: Probe = { endpoint: 'prompts', origin: brandId, drift: [] };
  const rows = readList(rec.body, probe).map(({ value, loc }) => {
    const v = inspect(PROMPT, value, probe, loc);
    return {
      table: 'prompts',
      row: {
        ...snapshotColumns(rec, brandId),
        prompt_id: recordId(value),
        text: v?.text ?? null,
        intent: v?.intent ?? null,
        engines: v?.engines ?? [],
        created_at: v?.created_at ?? null,
        latest_position: v?.latest_position ?? null,
        mentioned: v?.mentioned ?? null,
        payload: value,
      },
    };
  });
  return { rows, drift: probe.drift };
}
