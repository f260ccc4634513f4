import { createHash, randomBytes } from 'node:crypto';

export const RUN_KINDS = ['nightly', 'sync', 'backfill'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/**
 * Run ids sort by start time and are safe in paths and BigQuery job ids:
 * `20261121T225508Z-sync-3fa2c1`.
 */
export function newRunId(kind: RunKind, at: Date = new Date()): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return `${stamp}-${kind}-${randomBytes(3).toString('hex')}`;
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
