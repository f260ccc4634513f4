// The account as the extract stage needs it; the config's AccountConfig satisfies this shape.
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
