// A snapshot the normalisers did not recognise (docs/simulator.md, "Recognised shapes"): its figures
// are "not available", never 0, with the reason in words (the endpoint and the drift findings of
// the normaliser on the payload as kept) and the data as sent. Pure.
import type { Row } from '../../catalogue/types.js';
import { normaliseRecord } from '../../normalise/index.js';

/** report.json's `not_available` of a section: why its figures are missing, and what was sent. */
export interface NotAvailable {
  /** The API call, e.g. `GET /brands/{id}/reputation`. */
  endpoint: string;
  /** The drift findings, e.g. `engines missing; flags missing; statements not known`. */
  reason: string;
  /** The payload as sent, as JSON with one field or list item a line, cut at DATA_MAX characters. */
  data: string;
}

const DATA_MAX = 4000;

/** The snapshot rows whose body was not read: their counts are NULL (src/normalise). */
const NOT_READ: Record<string, { column: string; endpoint: 'reputation' | 'buyer-intent' }> = {
  reputation: { column: 'claim_count', endpoint: 'reputation' },
  buyer_intent: { column: 'loss_count', endpoint: 'buyer-intent' },
};

/** Whether a curated row is a snapshot whose body the normaliser could not read (its payload is kept whole). */
export function isNotRead(table: string, row: Row): boolean {
  const n = NOT_READ[table];
  return n !== undefined && (row[n.column] === null || row[n.column] === undefined);
}

const WORDS: Record<string, string> = {
  missing_field: 'missing',
  unknown_field: 'not known',
  type_change: 'of another type',
  unexpected_shape: 'in another shape',
};

/** JSON with each top-level field, and each item of a top-level list, on a line of its own. */
function asSent(value: unknown): string {
  const one = (v: unknown) => JSON.stringify(v) ?? 'null';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return one(value);
  const fields = Object.entries(value as Record<string, unknown>).map(([k, v]) =>
    Array.isArray(v) && v.length
      ? `  ${one(k)}: [\n${v.map((x) => `    ${one(x)}`).join(',\n')}\n  ]`
      : `  ${one(k)}: ${one(v)}`,
  );
  return `{\n${fields.join(',\n')}\n}`;
}

/** Why the row's figures are not available, and its data as sent; undefined when it was read. */
export function notAvailable(table: string, row: Row | undefined): NotAvailable | undefined {
  if (row === undefined || !isNotRead(table, row)) return undefined;
  const endpoint = (NOT_READ[table] as { endpoint: 'reputation' | 'buyer-intent' }).endpoint;
  const days = typeof row.window_days === 'number' ? row.window_days : 30;
  // The first pass's findings are not kept per snapshot: the run's drift report (the manifest's
  // `drift`, src/normalise/drift.ts) folds them over every workspace and window with one example,
  // and the curated row keeps only the payload. This workspace's own findings come from its payload.
  const { drift } = normaliseRecord({
    endpoint,
    account: String(row.account ?? ''),
    runId: String(row.run_id ?? ''),
    snapshotDate: String(row.snapshot_date ?? ''),
    extractedAt: String(row.extracted_at ?? ''),
    brandId: String(row.brand_id ?? ''),
    days,
    body: row.payload ?? null,
  });
  const findings = [
    ...new Set(
      drift.map((d) =>
        d.kind === 'type_change' || d.kind === 'unexpected_shape'
          ? d.detail
          : `${d.detail} ${WORDS[d.kind] ?? d.kind}`,
      ),
    ),
  ];
  const json = asSent(row.payload ?? null);
  return {
    endpoint: `GET /brands/{id}/${endpoint}${endpoint === 'buyer-intent' ? `?days=${days}` : ''}`,
    reason: findings.length ? findings.join('; ') : 'no list this version reads',
    data:
      json.length > DATA_MAX
        ? `${json.slice(0, DATA_MAX)}\n... (${json.length - DATA_MAX} more characters)`
        : json,
  };
}
