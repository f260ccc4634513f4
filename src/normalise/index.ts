// Public surface of the normalisers: raw records in, catalogue rows and drift findings out. Pure.
import { normaliseMe } from './account.js';
import { normaliseBuyerIntent } from './buyer-intent.js';
import { normalisePrompts } from './prompts.js';
import { normaliseRecommendations } from './recommendations.js';
import { normaliseReputation } from './reputation.js';
import type { LandedRaw, NormaliseResult } from './types.js';
import { normaliseVisibility } from './visibility.js';

export { normaliseBrands } from './brands.js';
export { DriftReport } from './drift.js';

/**
 * Rows and drift of one raw record. `brands` and `brand` records go through normaliseBrands
 * together, since one brand row merges the list item with the detail.
 */
export function normaliseRecord(rec: LandedRaw): NormaliseResult {
  switch (rec.endpoint) {
    case 'me':
      return normaliseMe(rec);
    case 'visibility':
      return normaliseVisibility(rec);
    case 'recommendations':
      return normaliseRecommendations(rec);
    case 'prompts':
      return normalisePrompts(rec);
    case 'buyer-intent':
      return normaliseBuyerIntent(rec);
    case 'reputation':
      return normaliseReputation(rec);
    case 'brands':
    case 'brand':
      throw new Error(`${rec.endpoint} records are normalised together by normaliseBrands`);
  }
}
