// Figures as the API gives them: a difference keeps the precision of its inputs (53.4 - 51.2 reads
// 2.2, not 2.2000000000000028), a mean is not rounded before it is compared. Null in, null out: a
// missing or drifted value is never 0.

/** Decimal places of a number as JavaScript prints it (at most 6). */
function decimals(n: number): number {
  const s = String(n);
  const e = /e-(\d+)$/.exec(s);
  if (e) return Math.min(6, Number(e[1]));
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : Math.min(6, s.length - dot - 1);
}

/** `n` at `places` decimals; a number too large to scale (1e308) has none to round. */
function round(n: number, places: number): number {
  const f = 10 ** places;
  return Number.isFinite(n * f) ? Math.round(n * f) / f : n;
}

export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * a - b at the precision of the more precise operand; null when either is missing, or when the
 * difference is no finite number (1e308 - -1e308): a figure no page can show is a missing one.
 */
export function delta(a: number | null, b: number | null): number | null {
  if (a === null || b === null) return null;
  return num(round(a - b, Math.max(decimals(a), decimals(b))));
}

/**
 * Mean to 12 significant digits: only float noise taken off (62.3, not 62.300000000000004), never
 * rounded to the inputs' decimals, so a delta of two means is that of the unrounded means (10.48,
 * never 10.47 from means rounded first); null for no values. The page rounds (docs/reports.md,
 * "Precision").
 */
export function mean(values: readonly (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null);
  if (xs.length === 0) return null;
  const sum = xs.reduce((s, x) => s + x, 0);
  // Values near the largest number overflow their sum, not their mean: add them divided.
  const m = Number.isFinite(sum) ? sum / xs.length : xs.reduce((s, x) => s + x / xs.length, 0);
  return num(Number(m.toPrecision(12)));
}

/** Code-unit order (never locale): the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * How a workspace's shares of voice come: `fraction` when every value known lies between 0 and 1
 * (0.35 is 35%), else `percent` (the API's 0-100, as the simulator sends). None known: `percent`.
 * A share that is a percentage never above 1% all through both periods reads as a fraction.
 */
export function shareOfVoiceUnit(values: readonly (number | null)[]): 'percent' | 'fraction' {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length > 0 && xs.every((v) => v >= 0 && v <= 1) ? 'fraction' : 'percent';
}
