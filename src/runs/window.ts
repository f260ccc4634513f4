// The nightly visibility window: every day since the account's last successful run, plus an
// overlap for late-arriving data, never less than the configured window and never more than the
// API's 365 days. Pure, so the rule is tested on its own.
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
