// Reads one run's raw landing back: which files exist, grouped per workspace, each parsed into a
// LandedRaw. Listing the store (not the manifest) makes replay work from the raw files alone.

import { callId, RAW_ENDPOINTS, type RawEndpoint } from '../api/endpoints.js';
import { brandIdOfRequest, parseRawDocument, withRedactions } from '../land/raw.js';
import type { LandedRaw } from '../normalise/types.js';
import type { ManifestFile } from '../records/manifest.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import { brandKey, parseRawKey, rawRunPrefix } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { sha256Hex } from '../util/hash.js';
import { encodeSegment } from '../util/path-segment.js';

export interface RawFileRef {
  key: string;
  endpoint: RawEndpoint;
  /** undefined for account-level files. */
  brandId?: string;
  days?: number;
}

/** Every raw file of the run, account-level ones first, then per workspace in sorted order. */
export async function listRawRun(
  store: ObjectStore,
  run: RunCoordinates,
): Promise<{
  account: RawFileRef[];
  workspaces: Map<string, RawFileRef[]>;
}> {
  const account: RawFileRef[] = [];
  const workspaces = new Map<string, RawFileRef[]>();
  for (const endpoint of RAW_ENDPOINTS) {
    for (const key of await store.list(rawRunPrefix(endpoint, run.account, run.runDate, run.runId))) {
      const ref = await rawFileRef(store, key);
      if (!ref) continue;
      if (ref.brandId === undefined) account.push(ref);
      else {
        const list = workspaces.get(ref.brandId) ?? [];
        list.push(ref);
        workspaces.set(ref.brandId, list);
      }
    }
  }
  const sorted = new Map([...workspaces.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { account, workspaces: sorted };
}

/**
 * The workspaces a run's raw landing names, each with the calls that landed for it (replay of a
 * run that has no manifest), named by callId as a resumed job names them.
 */
export async function rawRunWorkspaceCalls(
  store: ObjectStore,
  run: RunCoordinates,
): Promise<Map<string, string[]>> {
  const { workspaces } = await listRawRun(store, run);
  return new Map([...workspaces].map(([brandId, refs]) => [brandId, refs.map(callId)]));
}

/**
 * A raw file's coordinates from its key, or undefined for a file that is not one the landing
 * writes. A hashed workspace key does not hold the id: it is read from the file's request path.
 */
async function rawFileRef(store: ObjectStore, key: string): Promise<RawFileRef | undefined> {
  const parsed = parseRawKey(key);
  if (!parsed) return undefined;
  const ref: RawFileRef = { key, endpoint: parsed.endpoint };
  if (parsed.days !== undefined) ref.days = parsed.days;
  if (!parsed.brand) return ref;
  if (parsed.brand.brandId !== undefined) {
    ref.brandId = parsed.brand.brandId;
    return ref;
  }
  const bytes = await store.get(key);
  if (!bytes) throw new Error(`raw file disappeared while reading the run: ${key}`);
  const { request } = parseRawDocument(bytes);
  const brandId = brandIdOfRequest(parsed.endpoint, request);
  // The plain encoding matches too: a run landed on S3 before long ids were hashed.
  if (
    brandId === undefined ||
    (brandKey(brandId) !== parsed.brand.key && encodeSegment(brandId) !== parsed.brand.key)
  ) {
    throw new Error(
      `raw file ${key} does not match its request path ${JSON.stringify(request.path)}: ` +
        'restore the file from the landing or delete it, then replay the run',
    );
  }
  ref.brandId = brandId;
  return ref;
}

/** A raw file read back: the record, and the file as a manifest lists it. */
export async function readLandedRaw(
  store: ObjectStore,
  run: RunCoordinates,
  ref: RawFileRef,
): Promise<{ rec: LandedRaw; file: ManifestFile }> {
  const bytes = await store.get(ref.key);
  if (!bytes) throw new Error(`raw file disappeared while reading the run: ${ref.key}`);
  const doc = parseRawDocument(bytes);
  const file = withRedactions(
    { key: ref.key, bytes: bytes.byteLength, sha256: sha256Hex(bytes) },
    doc.request.redactions,
  );
  const rec: LandedRaw = {
    endpoint: ref.endpoint,
    account: run.account,
    runId: run.runId,
    snapshotDate: run.runDate,
    extractedAt: doc.request.received_at,
    body: doc.body,
  };
  if (ref.brandId !== undefined) rec.brandId = ref.brandId;
  if (ref.days !== undefined) rec.days = ref.days;
  return { rec, file };
}
