// The account as the extract stage needs it; the config's AccountConfig satisfies this shape.
import type { RateLimit } from './rate-budget.js';

export interface AccountSource {
  name: string;
  apiKey: string;
  baseUrl: string;
  brands: 'all' | readonly string[];
  requestsPerMinute?: number | undefined;
  rateWindowSeconds?: number | undefined;
  allowInsecureHttp?: boolean | undefined;
}

export const DEFAULT_REQUESTS_PER_WINDOW = 120;

/** The limit before GET /me has answered. Here, not in extract-account.ts: `status` needs it without the HTTP client. */
export function initialLimit(account: AccountSource): RateLimit {
  return {
    requests: account.requestsPerMinute ?? DEFAULT_REQUESTS_PER_WINDOW,
    windowMs: (account.rateWindowSeconds ?? 60) * 1000,
  };
}
