import { randomBytes } from 'node:crypto';

export type RunKind = 'nightly' | 'sync' | 'backfill';

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
