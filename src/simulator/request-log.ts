// Reading the simulator's request log the way the server counted: for tests, the demo and benches.
// A simulator in another process (`visync simulate --request-log FILE`) hands its log over as
// NDJSON, one entry per line, in arrival order.
import type { RequestLogEntry } from './types.js';

/** Most requests of `account` the server accepted (not 429, not reset) within any `windowMs`. */
export function peakInWindow(log: readonly RequestLogEntry[], account: string, windowMs: number): number {
  const times = log
    .filter((e) => e.account === account && e.status !== 429 && e.status !== 0)
    .map((e) => e.at);
  let peak = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) >= windowMs) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return peak;
}

/** The log as NDJSON (entries hold no API key, only the key's index). */
export function requestLogNdjson(log: readonly RequestLogEntry[]): string {
  let out = '';
  for (const e of log) out += `${JSON.stringify(e)}\n`;
  return out;
}

export function parseRequestLogNdjson(text: string): RequestLogEntry[] {
  const out: RequestLogEntry[] = [];
  for (const line of text.split('\n')) if (line.trim()) out.push(JSON.parse(line) as RequestLogEntry);
  return out;
}
