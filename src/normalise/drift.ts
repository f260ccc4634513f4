// Folds drift findings so a manifest says "data[].impact_score changed type 3,650 times" once,
// with the first place it was seen, instead of listing every record.
import type { DriftEntry } from '../records/manifest.js';

export type DriftKind =
  | 'unknown_field'
  | 'missing_field'
  | 'type_change'
  | 'count_mismatch'
  | 'unexpected_shape'
  /** GET /brands listed fewer workspaces than its count: the run is partial (src/records/manifest.ts). */
  | 'list_incomplete';

function keyOf(e: DriftEntry): string {
  return `${e.endpoint}|${e.kind}|${e.detail}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class DriftReport {
  private readonly folded = new Map<string, DriftEntry>();

  add(entry: DriftEntry): void {
    const key = keyOf(entry);
    const n = entry.count ?? 1;
    const seen = this.folded.get(key);
    if (seen) {
      seen.count = (seen.count ?? 1) + n;
      // Keep the first example, but take one when the first finding had none.
      if (seen.example === undefined && entry.example !== undefined) seen.example = entry.example;
      return;
    }
    const copy: DriftEntry = { endpoint: entry.endpoint, kind: entry.kind, detail: entry.detail };
    if (entry.example !== undefined) copy.example = entry.example;
    copy.count = n;
    if (entry.stage !== undefined) copy.stage = entry.stage;
    this.folded.set(key, copy);
  }

  addAll(entries: Iterable<DriftEntry>): void {
    for (const e of entries) this.add(e);
  }

  /** Sorted by endpoint, kind, detail (code-unit order, not locale), so manifests are stable. */
  entries(): DriftEntry[] {
    return [...this.folded.values()]
      .sort(
        (a, b) => compare(a.endpoint, b.endpoint) || compare(a.kind, b.kind) || compare(a.detail, b.detail),
      )
      .map((e) => ({ ...e }));
  }
}

/**
 * The log's line for a run's drift (the manifest lists each finding): how many findings of which
 * kinds on which endpoints, e.g. `schema drift: 3 findings (unknown_field 2, missing_field 1) on
 * me, prompts; the manifest's drift lists them`. Undefined when there is none.
 */
export function driftSummary(entries: readonly DriftEntry[]): { line: string; findings: number } | undefined {
  if (!entries.length) return undefined;
  const kinds = new Map<string, number>();
  let findings = 0;
  for (const e of entries) {
    const n = e.count ?? 1;
    findings += n;
    kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + n);
  }
  const byKind = [...kinds].map(([kind, n]) => `${kind} ${n}`).join(', ');
  const endpoints = [...new Set(entries.map((e) => e.endpoint))].sort(compare).join(', ');
  const line = `schema drift: ${findings} finding${findings === 1 ? '' : 's'} (${byKind}) on ${endpoints}; the manifest's drift lists them`;
  return { line, findings };
}
