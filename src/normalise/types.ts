// What a normaliser gets and gives. Normalisers are pure: no I/O, no clock.

import type { RawEndpoint } from '../api/endpoints.js';
import type { Row } from '../catalogue/types.js';
import type { DriftEntry } from '../records/manifest.js';

/** One landed raw file, parsed. */
export interface LandedRaw {
  endpoint: RawEndpoint;
  account: string;
  runId: string;
  /** The run's logical date (YYYY-MM-DD): snapshot_date of snapshot tables. */
  snapshotDate: string;
  /** request.received_at of the raw file: extracted_at of every row made from it. */
  extractedAt: string;
  brandId?: string;
  /** Buyer-intent window. */
  days?: number;
  body: unknown;
}

export interface TableRow {
  table: string;
  row: Row;
}

export interface NormaliseResult {
  rows: TableRow[];
  /** Unaggregated findings; the run folds them per endpoint and kind (DriftReport). */
  drift: DriftEntry[];
}
