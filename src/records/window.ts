// The nightly visibility window: every day since the account's last successful run, plus an
// overlap for late-arriving data, never less than the configured window and never more than the
// API's 365 days. The rule is pure (nightlyWindowDays), so it is tested on its own; `run --once`
// and the workers' nightly and sync runs find the account's last success with accountWindowDays.
// One rule for every run that is not given its days (--days) and is not a backfill.
import type { ObjectStore } from '../sinks/object-store.js';
import { lastSucceededRun, type RunHistory } from './history.js';
import type { RunKind } from './run-id.js';

/**
 * The days a queued run of `kind` covers when it was not given its own: a backfill its configured
 * number; a nightly run and a sync none, since their window follows the account's last success
 * (accountWindowDays), found when the run starts, as `run --once` does.
 */
export function configuredWindowDays(kind: RunKind, extract: { backfillDays: number }): number | undefined {
  return kind === 'backfill' ? extract.backfillDays : undefined;
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function nightlyWindowDays(o: {
  runDate: string;
  lastSuccessRunDate?: string | undefined;
  overlapDays: number;
  visibilityDays: number;
}): number {
  if (!o.lastSuccessRunDate) return o.visibilityDays;
  const missed = daysBetween(o.lastSuccessRunDate, o.runDate);
  return Math.min(365, Math.max(o.visibilityDays, missed + o.overlapDays));
}

export interface AccountWindow {
  store: ObjectStore;
  account: string;
  runDate: string;
  extract: { visibilityDays: number; overlapDays: number };
  /**
   * Run date of the account's last success. Default: read from the manifests in the sink, which
   * every run writes (the workers read their ledger first and fall back to the same manifests).
   */
  lastSuccessRunDate?: () => Promise<string | undefined>;
  /** The run's history, when the run reads it once for all its stages. */
  history?: RunHistory | undefined;
}

/** The account's window for a run on `runDate`: nightlyWindowDays from its last success. */
export async function accountWindowDays(o: AccountWindow): Promise<number> {
  const last = o.lastSuccessRunDate
    ? await o.lastSuccessRunDate()
    : (await lastSucceededRun(o.store, o.account, o.history))?.run_date;
  return nightlyWindowDays({
    runDate: o.runDate,
    lastSuccessRunDate: last,
    overlapDays: o.extract.overlapDays,
    visibilityDays: o.extract.visibilityDays,
  });
}

/**
 * The one window rule of every run, queued or inline: its --days, else a backfill's configured
 * days, else every day since the account's last success (accountWindowDays).
 */
export async function runWindowDays(
  o: AccountWindow & {
    kind: RunKind;
    days?: number | undefined;
    extract: AccountWindow['extract'] & { backfillDays: number };
  },
): Promise<number> {
  return o.days ?? configuredWindowDays(o.kind, o.extract) ?? (await accountWindowDays(o));
}
