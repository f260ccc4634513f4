// Building blocks every normaliser shares: the common columns and stable ids for records without one.
import { createHash } from 'node:crypto';
import type { Row } from '../catalogue/types.js';
import { child, isRecord, type Loc, type Probe, report, toUtcTimestamp, typeName } from './drift-spec.js';
import type { RawRecord } from './types.js';

/** extracted_at in UTC; the raw file's received_at is ours, so an odd value is kept rather than lost. */
function extractedAt(rec: RawRecord): string {
  return toUtcTimestamp(rec.extractedAt) ?? rec.extractedAt;
}

/** account, run_id, extracted_at: every row. */
export function baseColumns(rec: RawRecord): Row {
  return { account: rec.account, run_id: rec.runId, extracted_at: extractedAt(rec) };
}

/** account, brand_id, snapshot_date, run_id, extracted_at: workspace snapshot tables. */
export function snapshotColumns(rec: RawRecord, brandId: string): Row {
  return { ...baseColumns(rec), brand_id: brandId, snapshot_date: rec.snapshotDate };
}

/** Workspace endpoints are always fetched for one workspace; a record without one is a caller bug. */
export function requireBrandId(rec: RawRecord): string {
  if (rec.brandId === undefined) {
    throw new Error(`raw ${rec.endpoint} record of account ${rec.account} has no brandId`);
  }
  return rec.brandId;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** Same record, same id, whatever its key order: lets a record without an id keep a natural key. */
export function fallbackId(record: unknown): string {
  const json = JSON.stringify(canonical(record)) ?? 'null';
  return `sha1:${createHash('sha1').update(json).digest('hex')}`;
}

/**
 * The id column of a record: its id as sent (a number is kept as its decimal text; the inspector has
 * already reported the type change), else a fallback id (the missing field is already reported).
 */
export function recordId(record: unknown, key = 'id'): string {
  const raw =
    typeof record === 'object' && record !== null ? (record as Record<string, unknown>)[key] : undefined;
  if (typeof raw === 'string' && raw !== '') return raw;
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  return fallbackId(record);
}

export interface EngineScore {
  engine: string;
  score: number | null;
  /** The exploded map entry as sent: `{engine, score}`. */
  payload: { engine: string; score: unknown };
}

/**
 * Explodes a `model_scores` map (engine -> score) into one entry per engine, in the map's order. A
 * score that is not a number reads as null, with a type change; a map that is not an object gives
 * nothing here (the inspector reports it, and the parent row's payload keeps it).
 */
export function explodeScores(map: unknown, probe: Probe, loc: Loc): EngineScore[] {
  if (!isRecord(map)) return [];
  return Object.entries(map).map(([engine, score]) => {
    let value: number | null = null;
    if (typeof score === 'number') value = score;
    else if (score !== null) {
      const at = child(loc, engine);
      report(probe, 'type_change', `${loc.generic}.*: expected number, got ${typeName(score)}`, at, score);
    }
    return { engine, score: value, payload: { engine, score } };
  });
}
