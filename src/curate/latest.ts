// latest/account=…/brand=….json: one document per workspace with the newest body of every
// endpoint, for client reports that want one file per brand. latest/ only moves forward: a section
// is replaced only by one of a newer run, so a run whose call failed, a late backfill or a replay of
// an old run never hides newer data. Writers hold a lock per key (see curate-run.ts), so two runs
// of one account at the same time cannot lose each other's sections.
//
// "Newer" is decided by, in order: whether the run is dated ahead of today (a run of a clock that
// was ahead is older than any other, so it never freezes a section: src/records/clock.ts), the run's
// logical date (run_date), then when the body was received (extracted_at: of two runs of one day,
// the fresher data wins), then the run id (a fixed tie-break, so the outcome never depends on which
// run wrote first).
import type { LandedRaw } from '../normalise/types.js';
import { datedAhead } from '../records/clock.js';

export interface LatestSection {
  run_id: string;
  /** Logical date of the run the body comes from; absent in bundles written before it existed. */
  run_date?: string;
  extracted_at: string;
  body: unknown;
}

export interface LatestBundle {
  account: string;
  brand_id: string;
  /** The newest run the bundle holds data of. */
  run_date?: string;
  run_id?: string;
  /** Section name (endpoint, `buyer-intent.days-D` for each window) -> newest body. */
  sections: Record<string, LatestSection>;
}

export function sectionName(rec: Pick<LandedRaw, 'endpoint' | 'days'>): string {
  return rec.endpoint === 'buyer-intent' && rec.days !== undefined
    ? `buyer-intent.days-${rec.days}`
    : rec.endpoint;
}

/**
 * Negative when `a` is older than `b`: dated ahead of today (`now`) first, then by run date, then
 * extracted_at, then run id.
 */
export function compareSections(
  a: Pick<LatestSection, 'run_date' | 'extracted_at' | 'run_id'>,
  b: Pick<LatestSection, 'run_date' | 'extracted_at' | 'run_id'>,
  now = Date.now(),
): number {
  const keys = (s: typeof a) => [
    datedAhead(s.run_date, now) ? '0' : '1',
    s.run_date ?? '',
    s.extracted_at,
    s.run_id,
  ];
  const [ka, kb] = [keys(a), keys(b)];
  for (let i = 0; i < ka.length; i++) {
    if (ka[i]! < kb[i]!) return -1;
    if (ka[i]! > kb[i]!) return 1;
  }
  return 0;
}

export function mergeLatest(
  prev: LatestBundle | undefined,
  account: string,
  brandId: string,
  records: readonly LandedRaw[],
  now = Date.now(),
): LatestBundle {
  const sections: Record<string, LatestSection> = { ...(prev?.sections ?? {}) };
  for (const rec of records) {
    const name = sectionName(rec);
    const next: LatestSection = {
      run_id: rec.runId,
      run_date: rec.snapshotDate,
      extracted_at: rec.extractedAt,
      body: rec.body,
    };
    const old = sections[name];
    if (old && compareSections(old, next, now) > 0) continue;
    sections[name] = next;
  }
  const ordered: Record<string, LatestSection> = {};
  let newest: LatestSection | undefined;
  for (const name of Object.keys(sections).sort()) {
    const s = sections[name] as LatestSection;
    ordered[name] = s;
    if (!newest || compareSections(s, newest, now) > 0) newest = s;
  }
  return {
    account,
    brand_id: brandId,
    ...(newest ? { run_date: newest.run_date ?? '', run_id: newest.run_id } : {}),
    sections: ordered,
  };
}
