// The payload fields a report recognises, per curated table whose payload it inspects: what a field
// outside these lists is, src/report/model/unrecognised.ts lists. One home for the model (which lists the
// unrecognised fields) and the reader (which keeps of a payload only the fields outside these).
import { BUYER_INTENT } from '../../normalise/buyer-intent.js';
import { RECOMMENDATION } from '../../normalise/recommendations.js';
import { CLAIM, CONFLICT, REPUTATION_KEYS } from '../../normalise/reputation.js';
import { ENTRY } from '../../normalise/visibility.js';

export const KNOWN_PAYLOAD_KEYS = {
  buyer_intent: BUYER_INTENT.keys,
  recommendations: RECOMMENDATION.keys,
  reputation: REPUTATION_KEYS,
  reputation_claims: ['engine', ...CLAIM.keys],
  reputation_conflicts: CONFLICT.keys,
  visibility_daily: ENTRY.keys,
} as const satisfies Record<string, readonly string[]>;
