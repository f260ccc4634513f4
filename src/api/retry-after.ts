/**
 * Milliseconds to wait according to a Retry-After header: delta-seconds or an HTTP-date
 * (RFC 9110 10.2.3). Undefined when absent or unreadable, so the caller falls back to backoff.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const v = raw.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
