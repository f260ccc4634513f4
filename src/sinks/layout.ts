// The storage layout: one place that turns names into object keys and keys back into names, so
// the fs and S3 sinks, curate, replay and downstream readers can never disagree about where a file
// lives or what it holds. Every key builder here has its parser beside it, and each parser only
// accepts what its builder emits (test/keys.test.ts checks the round trip on arbitrary ids).
import { ACCOUNT_ENDPOINTS, RAW_ENDPOINTS, type RawEndpoint } from '../api/endpoints.js';
import { sha256Hex } from '../util/hash.js';
import { decodeSegment, encodeSegment } from '../util/path-segment.js';

/** The only endpoint whose raw files carry a window (`.days-N`) in their name. */
const WINDOWED_ENDPOINT: RawEndpoint = 'buyer-intent';

/** File name stem used for account-level calls (/me, /brands) in place of a workspace key. */
const ACCOUNT_KEY = '_account';

/*
 * Workspace keys (`brand_key`) and why some are hashed.
 *
 * A workspace id is stored under its percent-encoding (encodeSegment) when that is at most
 * PLAIN_KEY_MAX_BYTES (200) bytes long: every id seen in practice, which keeps the key it always
 * had. A longer encoding cannot be a file name (ext4 and most file systems stop at
 * 255 bytes; an 80-character CJK id encodes to 720), so such an id is stored under
 *
 *   <the encoding of its longest leading characters that fit in HASHED_PREFIX_MAX_BYTES>~h-<the
 *   first 32 hex digits of sha256(id in UTF-8)>
 *
 * which is 201 to 212 bytes long. Plain keys are at most 200 bytes and hashed keys always longer,
 * so the two kinds never meet and the length alone tells them apart (an id that happens to end in
 * `~h-<hex>` is short and therefore plain). A hashed key cannot be decoded back to its id: the id
 * is the one in the raw file's request path (see land/raw.ts), which curate and replay read.
 * The longest file name is then 212 + `.days-90.json` (13) = 225 bytes, under 255.
 * Keys longer than 200 bytes that are plain encodings were written before this rule (S3 allows
 * them); they are still read, so old runs replay.
 */
const PLAIN_KEY_MAX_BYTES = 200;
/** One more character encodes to at most 12 bytes, so a hashed key is at least 177 - 11 + 35 = 201 bytes. */
const HASHED_PREFIX_MAX_BYTES = PLAIN_KEY_MAX_BYTES - 23;
const HASH_MARK = '~h-';
const HASH_HEX_DIGITS = 32;
const HASHED_KEY = new RegExp(`^[A-Za-z0-9%!'()*._~-]+${HASH_MARK}[0-9a-f]{${HASH_HEX_DIGITS}}$`);

export function brandKey(brandId: string): string {
  // An empty id would make the file name `.json` and its API path the /brands list.
  if (brandId === '') throw new Error('a workspace id cannot be empty');
  const plain = encodeSegment(brandId);
  if (plain.length <= PLAIN_KEY_MAX_BYTES) return plain;
  let prefix = '';
  for (const ch of brandId) {
    const next = encodeURIComponent(ch);
    if (prefix.length + next.length > HASHED_PREFIX_MAX_BYTES) break;
    prefix += next;
  }
  return `${prefix}${HASH_MARK}${sha256Hex(brandId).slice(0, HASH_HEX_DIGITS)}`;
}

/** A workspace key read from a key: the id, unless the key is hashed (then only the file knows it). */
export interface BrandKeyParts {
  key: string;
  /** Undefined for a hashed key. */
  brandId?: string;
}

/** Parser of brandKey: undefined for anything brandKey never emits (or emitted before hashing). */
function parseBrandKey(key: string): BrandKeyParts | undefined {
  if (key.length > PLAIN_KEY_MAX_BYTES && HASHED_KEY.test(key)) return { key };
  let brandId: string;
  try {
    brandId = decodeSegment(key);
  } catch {
    return undefined;
  }
  return encodeSegment(brandId) === key ? { key, brandId } : undefined;
}

export interface RawKeyParts {
  endpoint: RawEndpoint;
  account: string;
  runDate: string;
  runId: string;
  /** Workspace id; given exactly for per-workspace endpoints. */
  brandId?: string;
  /** Buyer-intent window in days; given exactly for buyer-intent. */
  days?: number;
}

/** `raw/{endpoint}/account={account}/dt={run_date}/run={run_id}/{brand_key}[.days-{D}].json` */
export function rawKey(p: RawKeyParts): string {
  const accountLevel = isAccountEndpoint(p.endpoint);
  if (accountLevel !== (p.brandId === undefined))
    throw new Error(`raw ${p.endpoint} key: a workspace id is ${accountLevel ? 'not allowed' : 'required'}`);
  if ((p.endpoint === WINDOWED_ENDPOINT) !== (p.days !== undefined))
    throw new Error(
      `raw ${p.endpoint} key: a days window is only and always part of ${WINDOWED_ENDPOINT} keys`,
    );
  const base = p.brandId === undefined ? ACCOUNT_KEY : brandKey(p.brandId);
  const file = p.days === undefined ? `${base}.json` : `${base}.days-${p.days}.json`;
  return `${rawRunPrefix(p.endpoint, p.account, p.runDate, p.runId)}${file}`;
}

/** What parseRawKey reads back: RawKeyParts, with the workspace as its key (it may be hashed). */
export interface ParsedRawKey extends Omit<RawKeyParts, 'brandId'> {
  brand?: BrandKeyParts;
}

/** Parser of rawKey: undefined for any key rawKey never emits (stray files are not raw files). */
export function parseRawKey(key: string): ParsedRawKey | undefined {
  const parts = key.split('/');
  if (parts.length !== 6 || parts[0] !== 'raw') return undefined;
  const endpoint = RAW_ENDPOINTS.find((e) => e === parts[1]);
  const account = fieldValue(parts[2], 'account=');
  const runDate = fieldValue(parts[3], 'dt=');
  const runId = fieldValue(parts[4], 'run=');
  const file = parts[5] as string;
  if (!endpoint || account === undefined || runDate === undefined || runId === undefined) return undefined;
  const out: ParsedRawKey = { endpoint, account, runDate, runId };
  if (isAccountEndpoint(endpoint)) return file === `${ACCOUNT_KEY}.json` ? out : undefined;
  // The window is read from the right and only for buyer-intent: `foo.days-7.days-30.json` is
  // workspace `foo.days-7` with window 30, and `foo.days-7.json` elsewhere is workspace `foo.days-7`.
  const m =
    endpoint === WINDOWED_ENDPOINT ? /^(.+)\.days-([1-9]\d*)\.json$/.exec(file) : /^(.+)\.json$/.exec(file);
  const brand = m && parseBrandKey(m[1] as string);
  if (!brand) return undefined;
  out.brand = brand;
  if (m[2] !== undefined) out.days = Number(m[2]);
  return out;
}

/** Folder (prefix) holding every raw file of one endpoint, all accounts and runs. */
export function rawEndpointPrefix(endpoint: RawEndpoint): string {
  return `raw/${endpoint}/`;
}

/** Folder (prefix) holding every raw file of one endpoint of one account, all runs. */
export function rawAccountPrefix(endpoint: RawEndpoint, account: string): string {
  return `${rawEndpointPrefix(endpoint)}account=${account}/`;
}

/** Folder (prefix) holding every raw file of one endpoint of one run. */
export function rawRunPrefix(endpoint: RawEndpoint, account: string, runDate: string, runId: string): string {
  return `${rawAccountPrefix(endpoint, account)}dt=${runDate}/run=${runId}/`;
}

function isAccountEndpoint(endpoint: RawEndpoint): boolean {
  return (ACCOUNT_ENDPOINTS as readonly RawEndpoint[]).includes(endpoint);
}

export interface TablePartKeyParts {
  table: string;
  partitionDate: string;
  account: string;
  runId: string;
  part: number;
}

export function tablePartKey(p: TablePartKeyParts): string {
  const n = String(p.part).padStart(5, '0');
  return `tables/${p.table}/dt=${p.partitionDate}/account=${p.account}/run=${p.runId}/part-${n}.ndjson.gz`;
}

/** Parser of tablePartKey. */
export function parseTablePartKey(key: string): TablePartKeyParts | undefined {
  const parts = key.split('/');
  if (parts.length !== 6 || parts[0] !== 'tables' || !parts[1]) return undefined;
  const partitionDate = fieldValue(parts[2], 'dt=');
  const account = fieldValue(parts[3], 'account=');
  const runId = fieldValue(parts[4], 'run=');
  const n = /^part-(\d{5,})\.ndjson\.gz$/.exec(parts[5] as string)?.[1];
  if (partitionDate === undefined || account === undefined || runId === undefined || n === undefined)
    return undefined;
  const part = Number(n);
  if (String(part).padStart(5, '0') !== n) return undefined;
  return { table: parts[1], partitionDate, account, runId, part };
}

/** Folder (prefix) holding every run manifest of one account. */
export function accountRunsPrefix(account: string): string {
  return `runs/account=${account}/`;
}

export function manifestKey(account: string, runId: string): string {
  return `${accountRunsPrefix(account)}run=${runId}/manifest.json`;
}

/**
 * Beside the manifest, while a run --once works: its lease (who runs it, renewed while it does) and
 * its plan (what it set out to call). Neither is a manifest: parseManifestKey refuses them.
 */
export function runLeaseKey(account: string, runId: string): string {
  return `${accountRunsPrefix(account)}run=${runId}/lease.json`;
}

export function runPlanKey(account: string, runId: string): string {
  return `${accountRunsPrefix(account)}run=${runId}/plan.json`;
}

/** Beside the manifest: the run's brand-watch alert was delivered (src/delivery/digest/events-alert.ts sends it once). */
export function eventsAlertKey(account: string, runId: string): string {
  return `${accountRunsPrefix(account)}run=${runId}/events-alert.json`;
}

/** Marker of an account's weekly brand-watch digest (src/delivery/digest/send.ts): sent once per ISO week. */
export function digestMarkerKey(account: string, week: string): string {
  return `${accountRunsPrefix(account)}digest/week=${week}.json`;
}

/** Parser of manifestKey. */
export function parseManifestKey(key: string): { account: string; runId: string } | undefined {
  const parts = key.split('/');
  if (parts.length !== 4 || parts[0] !== 'runs' || parts[3] !== 'manifest.json') return undefined;
  const account = fieldValue(parts[1], 'account=');
  const runId = fieldValue(parts[2], 'run=');
  return account === undefined || runId === undefined ? undefined : { account, runId };
}

export function latestKey(account: string, brandId: string): string {
  return `latest/account=${account}/brand=${brandKey(brandId)}.json`;
}

/** Parser of latestKey (a hashed workspace key names its id inside the file, as `brand_id`). */
export function parseLatestKey(key: string): { account: string; brand: BrandKeyParts } | undefined {
  const parts = key.split('/');
  if (parts.length !== 3 || parts[0] !== 'latest') return undefined;
  const account = fieldValue(parts[1], 'account=');
  const stem = /^brand=(.+)\.json$/.exec(parts[2] as string)?.[1];
  const brand = stem === undefined ? undefined : parseBrandKey(stem);
  return account === undefined || !brand ? undefined : { account, brand };
}

/** `name=value` segment -> value (non-empty), else undefined. */
function fieldValue(segment: string | undefined, name: string): string | undefined {
  return segment?.startsWith(name) && segment.length > name.length ? segment.slice(name.length) : undefined;
}

/** The agency overview's folder, beside the workspaces' reports: `reports/account={account}/period={period}/`. */
export function overviewPrefix(account: string, period: string): string {
  return `reports/account=${account}/period=${period}/`;
}

/** The whole book's folder, above the accounts' (docs/reports.md, "The whole book"): `reports/agency/period={period}/`. */
export function agencyPrefix(period: string): string {
  return `reports/agency/period=${period}/`;
}

/** A client report's folder: `reports/account={account}/brand={brand_key}/period={period}/` (docs/reports.md). */
export function reportPrefix(account: string, brandId: string, period: string): string {
  return `reports/account=${account}/brand=${brandKey(brandId)}/period=${period}/`;
}
