// GET /brands (list) and GET /brands/{id} (detail) -> brands and brand_engine_scores. One row per
// brand id seen in either call, so a brand missing from one of them is never lost.
import { listShortfall, workspaceListShortfall } from '../api/envelope.js';
import type { Row } from '../catalogue/types.js';
import {
  child,
  f,
  inspect,
  isRecord,
  type Loc,
  type Out,
  obj,
  type Probe,
  readList,
  readObject,
  report,
} from './drift-spec.js';
import { explodeScores, recordId, snapshotColumns } from './rows.js';
import type { LandedRaw, NormaliseResult, TableRow } from './types.js';

// The only shapes the upstream spec documents: the list item and its latest_score (docs/simulator.md, "The
// simulator and our assumptions about the upstream API").
const WORKSPACE_FIELDS = {
  id: f.string,
  name: f.string,
  domain: f.string,
  niche: f.string,
  keywords: f.strings,
  created_at: f.timestamp,
  latest_score: obj({
    date: f.date,
    overall_score: f.number,
    share_of_voice: f.number,
    model_scores: f.scores,
  }),
};
const WORKSPACE = obj(WORKSPACE_FIELDS);
// The detail adds the engine mode and competitor count; their names are assumed.
const DETAIL = obj({ ...WORKSPACE_FIELDS, engine_mode: f.string, competitor_count: f.integer });

interface Source<V> {
  rec: LandedRaw;
  value: unknown;
  v: V;
  probe: Probe;
  loc: Loc;
}

interface Seen {
  brandId: string;
  list?: Source<Out<typeof WORKSPACE>>;
  detail?: Source<Out<typeof DETAIL>>;
}

/** The detail over the list item, nested objects merged too, so no field of either is lost. */
function mergeDeep(base: unknown, over: unknown): unknown {
  if (!isRecord(base) || !isRecord(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    out[key] = Object.hasOwn(base, key) ? mergeDeep(base[key], value) : value;
  }
  return out;
}

export function normaliseBrands(list: LandedRaw | undefined, details: readonly LandedRaw[]): NormaliseResult {
  const drift: NormaliseResult['drift'] = [];
  const seen: Seen[] = [];
  const firstById = new Map<string, Seen>();

  if (list) {
    const probe: Probe = { endpoint: 'brands', origin: list.account, drift };
    // From the raw landing, so a replayed or completed run finds it again.
    const short = listShortfall(list.body);
    if (short) report(probe, 'list_incomplete', workspaceListShortfall(short), undefined);
    for (const { value, loc } of readList(list.body, probe)) {
      const v = inspect(WORKSPACE, value, probe, loc);
      const brandId = recordId(value);
      // A repeated id keeps its own row (nothing is dropped) but details attach to the first.
      if (firstById.has(brandId))
        report(probe, 'unexpected_shape', 'duplicate id in the list', child(loc, 'id'), brandId);
      const entry: Seen = { brandId, list: { rec: list, value, v, probe, loc } };
      seen.push(entry);
      if (!firstById.has(brandId)) firstById.set(brandId, entry);
    }
  }

  for (const rec of details) {
    const probe: Probe = { endpoint: 'brand', origin: rec.brandId ?? rec.account, drift };
    const located = readObject(rec.body, probe, DETAIL.keys);
    for (const { value, loc } of located) {
      const v = inspect(DETAIL, value, probe, loc);
      const sentId = recordId(value);
      // The id we asked for is the workspace; a body naming another one is drift, not a new brand.
      const brandId = located.length === 1 && rec.brandId !== undefined ? rec.brandId : sentId;
      if (v?.id != null && v.id !== brandId) {
        report(
          probe,
          'unexpected_shape',
          'id differs from the requested workspace id',
          child(loc, 'id'),
          v.id,
        );
      }
      let entry = firstById.get(brandId);
      if (!entry || entry.detail) {
        entry = { brandId };
        seen.push(entry);
        if (!firstById.has(brandId)) firstById.set(brandId, entry);
      }
      entry.detail = { rec, value, v, probe, loc };
    }
  }

  const rows: TableRow[] = [];
  for (const entry of seen) rows.push(...brandRows(entry));
  return { rows, drift };
}

function brandRows(entry: Seen): TableRow[] {
  const { list, detail } = entry;
  // The detail is the newer, fuller answer; list values fill what it lacks.
  const source = (detail ?? list) as Source<unknown>;
  const rec = source.rec;
  const d = detail?.v;
  const l = list?.v;
  const payload = list && detail ? mergeDeep(list.value, detail.value) : source.value;
  const scoreDate = d?.latest_score?.date ?? l?.latest_score?.date ?? null;
  const base: Row = snapshotColumns(rec, entry.brandId);
  const rows: TableRow[] = [
    {
      table: 'brands',
      row: {
        ...base,
        name: d?.name ?? l?.name ?? null,
        domain: d?.domain ?? l?.domain ?? null,
        niche: d?.niche ?? l?.niche ?? null,
        keywords: d?.keywords ?? l?.keywords ?? [],
        created_at: d?.created_at ?? l?.created_at ?? null,
        engine_mode: d?.engine_mode ?? null,
        competitor_count: d?.competitor_count ?? null,
        score_date: scoreDate,
        overall_score: d?.latest_score?.overall_score ?? l?.latest_score?.overall_score ?? null,
        share_of_voice: d?.latest_score?.share_of_voice ?? l?.latest_score?.share_of_voice ?? null,
        in_list: list !== undefined,
        has_detail: detail !== undefined,
        payload,
      },
    },
  ];
  const scores =
    isRecord(payload) && isRecord(payload.latest_score) ? payload.latest_score.model_scores : undefined;
  const at = child(child(source.loc, 'latest_score'), 'model_scores');
  for (const s of explodeScores(scores, source.probe, at)) {
    rows.push({
      table: 'brand_engine_scores',
      row: { ...base, engine: s.engine, score: s.score, score_date: scoreDate, payload: s.payload },
    });
  }
  return rows;
}
