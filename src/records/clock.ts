// A machine whose clock runs ahead dates its runs in the future (run ids, `dt=`, run dates), and
// every order by run date then puts them above the real runs that follow: latest/ would keep their
// sections, `visync runs` list them first and the nightly window count from them. Two defences,
// docs/faults.md: a run is refused when this machine's clock is ahead of the API server's
// (its Date header, a clock we do not set), and wherever runs are ordered, a run dated more than a
// day after today's date counts as older than every other, so one bad clock never blocks newer runs.
import { VisyncError } from '../util/errors.js';
import { addDays, utcDate } from '../util/time.js';

/** How far this machine's clock may run ahead of the API server's (clock skew, a slow answer). */
const TOLERANCE_MS = 86_400_000;

/**
 * This machine's clock (`now`) is more than a day ahead of the API server's `Date` header: how far,
 * in words (doctor's finding; a run is refused with ClockAheadError). Undefined when it is not, or
 * when the server sent no usable date.
 */
export function clockAhead(serverDate: string | undefined, now: number): string | undefined {
  const server = serverDate === undefined ? Number.NaN : Date.parse(serverDate);
  if (Number.isNaN(server) || now - server <= TOLERANCE_MS) return undefined;
  const days = Math.round((now - server) / 86_400_000);
  return (
    `this machine's clock (${new Date(now).toISOString()}) is ${days} day${days === 1 ? '' : 's'} ` +
    `ahead of the API server's (Date: ${serverDate})`
  );
}

/** A run refused because this machine's clock is ahead (`ahead`: what clockAhead says). */
export class ClockAheadError extends VisyncError {
  override readonly name = 'ClockAheadError';
  get code() {
    return 'clock_ahead' as const;
  }
  constructor(account: string, ahead: string) {
    super(
      `${account}: ${ahead}: the run is refused, since its future date would put it above every run ` +
        'that follows; set the clock right (NTP) and run again',
    );
  }
}

/**
 * A run date more than a day after today's (this machine's clock now): a run of a clock that was
 * ahead. Orders of runs put it below every other, so it never hides a newer one.
 */
export function datedAhead(runDate: string | undefined, now = Date.now()): boolean {
  return runDate !== undefined && runDate > addDays(utcDate(new Date(now)), 1);
}
