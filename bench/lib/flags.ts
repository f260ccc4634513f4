// Command-line values shared by the benches.

/** `--flag 1,2,4`: whole numbers from 1 to 5000, comma separated; a clear error otherwise. */
export function countList(flag: string, v: string | undefined): number[] {
  const out = (v ?? '').split(',').map((s) => Number(s.trim()));
  if (!out.length || out.some((n) => !Number.isInteger(n) || n < 1 || n > 5000))
    throw new Error(`--${flag}: expected whole numbers from 1 to 5000, comma separated, got "${v}"`);
  return out;
}
