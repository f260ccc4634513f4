// The storage layout of design section 4: one place that turns names into object keys, so the fs
// and S3 sinks, replay and downstream readers can never disagree about where a file lives.

/** Every upstream endpoint, by the name of its folder under raw/ (account-level ones first). */
export const RAW_ENDPOINTS = [
  'me',
  'brands',
  'brand',
  'visibility',
  'recommendations',
  'prompts',
  'buyer-intent',
  'reputation',
] as const;

export type RawEndpoint = (typeof RAW_ENDPOINTS)[number];

/** Key used for account-level calls (/me, /brands) in place of a workspace key. */
export const ACCOUNT_KEY = '_account';

/**
 * Percent-encodes one path segment. encodeURIComponent already emits upper-case hex; a lone `.` or
 * `..` would survive it and be resolved as "this/parent folder" by URL and path normalisation, so
 * they are encoded too. Used both for API paths and for file names: one rule, no escape.
 */
export function encodeSegment(id: string): string {
  if (id === '.' || id === '..') return id.replaceAll('.', '%2E');
  return encodeURIComponent(id);
}

/** Inverse of encodeSegment, for reading a brand key back from a file name. */
export function decodeSegment(segment: string): string {
  return decodeURIComponent(segment);
}

export function brandKey(brandId: string): string {
  return encodeSegment(brandId);
}

export interface RawKeyParts {
  endpoint: RawEndpoint;
  account: string;
  runDate: string;
  runId: string;
  /** Workspace id; omitted for account-level calls. */
  brandId?: string;
  /** Buyer-intent window in days. */
  days?: number;
}

export function rawKey(p: RawKeyParts): string {
  const base = p.brandId === undefined ? ACCOUNT_KEY : brandKey(p.brandId);
  const file = p.days === undefined ? `${base}.json` : `${base}.days-${p.days}.json`;
  return `raw/${p.endpoint}/account=${p.account}/dt=${p.runDate}/run=${p.runId}/${file}`;
}

/** Folder (prefix) holding every raw file of one endpoint of one run. */
export function rawRunPrefix(endpoint: RawEndpoint, account: string, runDate: string, runId: string): string {
  return `raw/${endpoint}/account=${account}/dt=${runDate}/run=${runId}/`;
}

export function tablePartKey(p: {
  table: string;
  partitionDate: string;
  account: string;
  runId: string;
  part: number;
}): string {
  const n = String(p.part).padStart(5, '0');
  return `tables/${p.table}/dt=${p.partitionDate}/account=${p.account}/run=${p.runId}/part-${n}.ndjson.gz`;
}

export function manifestKey(account: string, runId: string): string {
  return `runs/account=${account}/run=${runId}/manifest.json`;
}

export function latestKey(account: string, brandId: string): string {
  return `latest/account=${account}/brand=${brandKey(brandId)}.json`;
}
