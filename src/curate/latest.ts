// latest/account=…/brand=….json: one document per workspace with the newest body of every
// endpoint, for client reports that want one file per brand. A section is replaced only by a
// newer one, so a run whose call failed (or a replay of an old run) never hides newer data.
import type { RawRecord } from '../normalise/types.js';

export interface LatestSection {
  run_id: string;
  extracted_at: string;
  body: unknown;
}

export interface LatestBundle {
  account: string;
  brand_id: string;
  /** Section name (endpoint, `buyer-intent.days-D` for each window) -> newest body. */
  sections: Record<string, LatestSection>;
}

export function sectionName(rec: Pick<RawRecord, 'endpoint' | 'days'>): string {
  return rec.endpoint === 'buyer-intent' && rec.days !== undefined
    ? `buyer-intent.days-${rec.days}`
    : rec.endpoint;
}

export function mergeLatest(
  prev: LatestBundle | undefined,
  account: string,
  brandId: string,
  records: readonly RawRecord[],
): LatestBundle {
  const sections: Record<string, LatestSection> = { ...(prev?.sections ?? {}) };
  for (const rec of records) {
    const name = sectionName(rec);
    const old = sections[name];
    if (old && old.extracted_at > rec.extractedAt) continue;
    sections[name] = { run_id: rec.runId, extracted_at: rec.extractedAt, body: rec.body };
  }
  const ordered: Record<string, LatestSection> = {};
  for (const name of Object.keys(sections).sort()) ordered[name] = sections[name] as LatestSection;
  return { account, brand_id: brandId, sections: ordered };
}
