// A workspace's state as one complete run holds it: the rows of a snapshot table read the same way
// by the client report (src/report/model/model.ts) and brand watch (src/events/state.ts). Pure.
import type { Row } from '../catalogue/types.js';
import { compareText } from './figures.js';

/** A prompt lost to a competitor, from a buyer-intent row's `losses`. */
export interface Loss {
  prompt: string | null;
  engine: string | null;
  winner_name: string | null;
  winner_domain: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A claim row flagged as suspected false (either column). */
export const isSuspect = (r: Row) => r.flagged === true || r.suspected_false === true;

/** The losses of a buyer-intent row, in a fixed order (winner, prompt, engine). */
export function losses(row: Row | undefined): Loss[] {
  const list = Array.isArray(row?.losses) ? (row.losses as unknown[]) : [];
  return list
    .map((l): Loss => {
      const o = (l !== null && typeof l === 'object' ? l : {}) as Record<string, unknown>;
      const w = (o.winner !== null && typeof o.winner === 'object' ? o.winner : {}) as Record<
        string,
        unknown
      >;
      return {
        prompt: str(o.prompt),
        engine: str(o.engine),
        winner_name: str(w.name),
        winner_domain: str(w.domain),
      };
    })
    .sort(
      (a, b) =>
        compareText(a.winner_name ?? '', b.winner_name ?? '') ||
        compareText(a.prompt ?? '', b.prompt ?? '') ||
        compareText(a.engine ?? '', b.engine ?? ''),
    );
}
