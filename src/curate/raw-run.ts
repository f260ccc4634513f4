// Reads one run's raw landing back: which files exist, grouped per workspace, each parsed into a
// RawRecord. Listing the store (not the manifest) makes replay work from the raw files alone.

import { parseRawDocument } from '../land/raw.js';
import type { RawRecord } from '../normalise/types.js';
import {
  ACCOUNT_KEY,
  decodeSegment,
  RAW_ENDPOINTS,
  type RawEndpoint,
  rawRunPrefix,
} from '../sinks/layout.js';
import type { ObjectStore, StoredObject } from '../sinks/object-store.js';
import { sha256Hex } from '../util/hash.js';

export interface RunCoordinates {
  account: string;
  runId: string;
  runDate: string;
}

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
    const prefix = rawRunPrefix(endpoint, run.account, run.runDate, run.runId);
    for (const key of await store.list(prefix)) {
      const ref = parseRawFileName(endpoint, key, key.slice(prefix.length));
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

function parseRawFileName(endpoint: RawEndpoint, key: string, file: string): RawFileRef | undefined {
  const m = /^(.+?)(?:\.days-(\d+))?\.json$/.exec(file);
  if (!m) return undefined;
  const name = m[1] as string;
  const ref: RawFileRef = { key, endpoint };
  if (name !== ACCOUNT_KEY) ref.brandId = decodeSegment(name);
  if (m[2] !== undefined) ref.days = Number(m[2]);
  return ref;
}

/** A raw file read back: the record, and the file as a manifest lists it. */
export async function readRawRecord(
  store: ObjectStore,
  run: RunCoordinates,
  ref: RawFileRef,
): Promise<{ rec: RawRecord; file: StoredObject }> {
  const bytes = await store.get(ref.key);
  if (!bytes) throw new Error(`raw file disappeared while reading the run: ${ref.key}`);
  const file = { key: ref.key, bytes: bytes.byteLength, sha256: sha256Hex(bytes) };
  const doc = parseRawDocument(bytes);
  const rec: RawRecord = {
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
