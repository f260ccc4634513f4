// Payload fields a normaliser did not recognise (the upstream field names are assumptions): a report
// never drops them silently but lists them, with one example value, under a "shape not recognised"
// note. Pure.
import type { Row } from '../../catalogue/types.js';
import { compareText } from '../../history/figures.js';
import { shortened } from '../../util/text.js';

export interface Unrecognised {
  table: string;
  field: string;
  /** One example value as JSON, shortened to EXAMPLE_MAX characters. */
  example: string;
}

const EXAMPLE_MAX = 120;

export function unrecognisedFields(
  table: string,
  rows: readonly Row[],
  known: readonly string[],
): Unrecognised[] {
  const seen = new Map<string, string>();
  for (const r of rows) {
    const p = r.payload;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) continue;
    for (const [k, v] of Object.entries(p as Record<string, unknown>)) {
      if (!known.includes(k) && !seen.has(k))
        seen.set(k, shortened(JSON.stringify(v) ?? 'null', EXAMPLE_MAX));
    }
  }
  return [...seen]
    .sort((a, b) => compareText(a[0], b[0]))
    .map(([field, example]) => ({ table, field, example }));
}
