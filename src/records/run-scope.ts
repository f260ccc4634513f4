// What a run was asked to cover: some workspaces (--brand) and endpoints (--endpoints), or all.
// The manifest records it and the last-success rule (src/records/last-success.ts) reads it.

/** What a run was asked to cover; a list names a subset, `all` means no filter. */
export interface RunScope {
  brands: 'all' | string[];
  endpoints: 'all' | string[];
}

export function runScope(brands?: readonly string[], endpoints?: readonly string[]): RunScope {
  return {
    brands: brands?.length ? [...brands] : 'all',
    endpoints: endpoints?.length ? [...endpoints] : 'all',
  };
}
