// The one cap on an account pause (extract.maxPauseSeconds). The upstream decides how long a
// Retry-After asks for, and it may ask for anything: 99999999999999999999 s, a date in year 9999.
// Every pause goes through cappedPauseMs, in the retry decision (src/api/retry-decision.ts) and in
// both budgets (src/api/rate-budget.ts, jobs/redis-rate-budget.ts), so no pause outlasts the cap,
// none is left without an end, and no duration that reaches Redis or a timer is other than a
// whole number of ms within it.

/** Default of extract.maxPauseSeconds: one hour. */
export const DEFAULT_MAX_PAUSE_MS = 3_600_000;

/** extract.maxPauseSeconds in ms: what every budget and client built from the config caps a pause at. */
export function maxPauseMs(config: { extract: { maxPauseSeconds: number } }): number {
  return config.extract.maxPauseSeconds * 1000;
}

/** A pause of `requestedMs` (any number: NaN, negative, Infinity) as a whole number of ms in [0, capMs]. */
export function cappedPauseMs(requestedMs: number, capMs = DEFAULT_MAX_PAUSE_MS): number {
  if (!(requestedMs > 0)) return 0;
  return Math.ceil(Math.min(requestedMs, capMs));
}

/** `2026-11-26T16:00:00Z`: an instant rounded up to the whole second, for the line a refused run prints. */
export function utcSecond(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
