// Building blocks every normaliser shares: the common columns and stable ids for records without one.
import { createHash } from 'node:crypto';
import type { Row } from '../catalogue/types.js';
import {
  child,
  isRecord,
  item,
  type Loc,
  type Probe,
  report,
  toUtcTimestamp,
  typeName,
} from './drift-spec.js';
import type { LandedRaw } from './types.js';

/** extracted_at in UTC; the raw file's received_at is ours, so an odd value is kept rather than lost. */
function extractedAt(rec: LandedRaw): string {
  return toUtcTimestamp(rec.extractedAt) ?? rec.extractedAt;
}

/** account, run_id, extracted_at: every row. */
export function baseColumns(rec: LandedRaw): Row {
  return { account: rec.account, run_id: rec.runId, extracted_at: extractedAt(rec) };
}

/** account, brand_id, snapshot_date, run_id, extracted_at: workspace snapshot tables. */
export function snapshotColumns(rec: LandedRaw, brandId: string): Row {
  return { ...baseColumns(rec), brand_id: brandId, snapshot_date: rec.snapshotDate };
}

/** Workspace endpoints are always fetched for one workspace; a record without one is a caller bug. */
export function requireBrandId(rec: LandedRaw): string {
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
function fallbackId(record: unknown): string {
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

/** A score as sent: a number, else null and a type change (null is "no value", never drift). */
function scoreOf(score: unknown, probe: Probe, loc: Loc, generic: string): number | null {
  if (typeof score === 'number') return score;
  if (score !== null && score !== undefined)
    report(probe, 'type_change', `${generic}: expected number, got ${typeName(score)}`, loc, score);
  return null;
}

const ENGINE_SCORE_KEYS = new Set(['engine', 'score']);

/**
 * Explodes per-engine values into one entry per engine, in the order sent. Recognised shapes
 * (docs/simulator.md): a map engine -> score (`model_scores` as documented for /brands), or a list
 * of `{engine, score}`. A score that is not a number reads as null, with a type change; a list item
 * without a string `engine` is reported and left out (the parent row's payload keeps it); anything
 * else gives nothing here (the inspector reports it, and the parent row's payload keeps it).
 */
export function explodeScores(scores: unknown, probe: Probe, loc: Loc): EngineScore[] {
  if (Array.isArray(scores)) {
    const out: EngineScore[] = [];
    scores.forEach((entry, i) => {
      const at = item(loc, i);
      if (!isRecord(entry) || typeof entry.engine !== 'string') {
        report(probe, 'unexpected_shape', `${loc.generic}[]: expected {engine, score}`, at, entry);
        return;
      }
      for (const key of Object.keys(entry))
        if (!ENGINE_SCORE_KEYS.has(key))
          report(probe, 'unknown_field', child(at, key).generic, child(at, key), entry[key]);
      const score = scoreOf(entry.score, probe, child(at, 'score'), `${loc.generic}[].score`);
      out.push({
        engine: entry.engine,
        score,
        payload: { engine: entry.engine, score: entry.score ?? null },
      });
    });
    return out;
  }
  if (!isRecord(scores)) return [];
  return Object.entries(scores).map(([engine, score]) => {
    const value = scoreOf(score, probe, child(loc, engine), `${loc.generic}.*`);
    return { engine, score: value, payload: { engine, score } };
  });
}
