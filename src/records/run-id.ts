import { createHash, randomBytes } from 'node:crypto';
import { utcDate } from '../util/time.js';

export const RUN_KINDS = ['nightly', 'sync', 'backfill'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/**
 * Every run id has one shape, `{YYYYMMDD}-{kind}-{hex}`: the run's logical date, its kind, then
 * 8 hex digits of a logical run (logicalRunId) or 12 of a fresh one (`run --once`, `enqueue
 * --force`): `20261126-sync-09f1a3c47e2b`. A fresh id's hex starts with the second of the day it
 * started (5 hex digits), so fresh ids of one date sort by start time; the other 7 are random. The
 * id says nothing about who runs it: that is the run's lease (src/records/run-lease.ts).
 */
export function newRunId(kind: RunKind, at: Date = new Date(), runDate: string = utcDate(at)): string {
  const second = Math.floor((at.getTime() - Date.parse(`${utcDate(at)}T00:00:00Z`)) / 1000);
  const random = randomBytes(4).toString('hex').slice(0, 7);
  return `${runDate.replaceAll('-', '')}-${kind}-${second.toString(16).padStart(5, '0')}${random}`;
}

/** The kind a run id names (every id shape carries `-{kind}-`); sync when it names none. */
export function kindOfRunId(runId: string): RunKind {
  return RUN_KINDS.find((k) => runId.includes(`-${k}-`)) ?? 'sync';
}

export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The id of a logical run: the same account, kind, date and parameters give the same id, so the
 * same run enqueued twice (or a schedule firing twice) runs once. `20261121-backfill-a1b2c3d4`.
 */
export function logicalRunId(
  kind: RunKind,
  account: string,
  runDate: string,
  params: {
    days?: number | undefined;
    brands?: readonly string[] | undefined;
    endpoints?: readonly string[] | undefined;
  } = {},
): string {
  const identity = JSON.stringify([
    account,
    kind,
    runDate,
    params.days ?? null,
    [...(params.brands ?? [])].sort(),
    [...(params.endpoints ?? [])].sort(),
  ]);
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 8);
  return `${runDate.replaceAll('-', '')}-${kind}-${hash}`;
}
