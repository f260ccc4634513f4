// Figures as the API gives them: a difference or mean keeps the precision of its inputs (53.4 - 51.2
// reads 2.2, not 2.2000000000000028). Null in, null out: a missing or drifted value is never 0.

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

/** Mean at one more decimal than the most precise value; null for no values. */
export function mean(values: readonly (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null);
  if (xs.length === 0) return null;
  const places = Math.min(6, Math.max(...xs.map(decimals)) + 1);
  const sum = xs.reduce((s, x) => s + x, 0);
  // Values near the largest number overflow their sum, not their mean: add them divided.
  const m = Number.isFinite(sum) ? sum / xs.length : xs.reduce((s, x) => s + x / xs.length, 0);
  return num(round(m, places));
}

/** Code-unit order (never locale): the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
