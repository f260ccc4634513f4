// GET /me documents only "plan, limits, usage" (field names not shown). These readers try the
// names we assume first, then a few likely variants, and give up quietly: the caller falls back
// to the configured limit.

function pick(o: unknown, ...path: string[]): unknown {
  let cur = o;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

const LIMIT_PATHS: string[][] = [
  ['limits', 'requests_per_minute'],
  ['limits', 'rate_limit'],
  ['limits', 'requestsPerMinute'],
  ['limits', 'rate', 'requests_per_minute'],
  ['rate_limit', 'requests_per_minute'],
  ['limits', 'requests'],
];

/** Request limit per window announced by /me, if it can be found. */
export function announcedRequestLimit(me: unknown): number | undefined {
  for (const path of LIMIT_PATHS) {
    const v = pick(me, ...path);
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return undefined;
}

const USAGE_PATHS: string[][] = [
  ['usage', 'requests_in_window'],
  ['usage', 'requests'],
  ['usage', 'requests_this_minute'],
];

/** Requests of the account /me reports in the current window (itself included), if it can be found. */
export function reportedUsage(me: unknown): number | undefined {
  for (const path of USAGE_PATHS) {
    const v = pick(me, ...path);
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  }
  return undefined;
}
