// Curated rows as a `visync report` run keeps them between reading an account's parts and making its
// last report: every workspace's rows are read first (each part once per account), so what a row
// holds is what the run's memory grows with (docs/reports.md, "Speed"). A kept row has the columns
// the curated table has, every string column shared with the equal strings of other rows (run ids,
// workspace ids and extraction times repeat on every row), and of its payload only what the model
// reads there: the fields outside KNOWN_PAYLOAD_KEYS, for the tables whose unrecognised fields a
// report lists (all of it for a snapshot not read, ./not-read.ts). The model's figures come from the columns, so they are the same either way.
import type { Row } from '../../catalogue/types.js';
import { isNotRead } from './not-read.js';
import { KNOWN_PAYLOAD_KEYS } from './payload-keys.js';

const KNOWN: Readonly<Record<string, readonly string[]>> = KNOWN_PAYLOAD_KEYS;

export class RowCompactor {
  private readonly strings = new Map<string, string>();

  compact(table: string, row: Row): Row {
    const out: Row = {};
    for (const [k, v] of Object.entries(row)) {
      if (k === 'payload') {
        // A snapshot not read keeps its payload whole: the report shows it as sent (./not-read.ts).
        const rest = isNotRead(table, row) ? v : unrecognisedPart(v, KNOWN[table]);
        if (rest) out.payload = rest;
      } else out[k] = typeof v === 'string' ? this.intern(v) : v;
    }
    return out;
  }

  private intern(s: string): string {
    const seen = this.strings.get(s);
    if (seen !== undefined) return seen;
    this.strings.set(s, s);
    return s;
  }
}

/** The payload's fields outside `known`, in their order; undefined when none are or none is read. */
function unrecognisedPart(payload: unknown, known: readonly string[] | undefined): Row | undefined {
  if (!known || payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const rest = Object.entries(payload).filter(([k]) => !known.includes(k));
  // fromEntries defines each field as the payload's own, whatever its name (even `__proto__`).
  return rest.length ? Object.fromEntries(rest) : undefined;
}
