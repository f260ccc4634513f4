/** Request statistics of a run, as the manifest records them. */
export interface RequestStats {
  calls: number;
  rate_limited: number;
  retries: number;
  waited_ms: number;
}

export function emptyStats(): RequestStats {
  return { calls: 0, rate_limited: 0, retries: 0, waited_ms: 0 };
}
