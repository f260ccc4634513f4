// Raw landing: every successful response body, unchanged but for an echoed API key (the client
// replaced it, src/api/client.ts), wrapped with what was asked. The body is spliced in as text
// rather than re-serialised, so its bytes are otherwise exactly what the API sent.
import type { ApiResponse } from '../api/client.js';
import type { RawEndpoint } from '../api/endpoints.js';
import type { ManifestFile } from '../records/manifest.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import { type RawKeyParts, rawKey } from '../sinks/layout.js';
import type { ObjectStore, StoredObject } from '../sinks/object-store.js';
import { decodeSegment } from '../util/path-segment.js';

export interface RawRequestInfo {
  method: 'GET';
  path: string;
  query: Record<string, string>;
  status: number;
  received_at: string;
  /** Occurrences of the account's key replaced in the body; absent when none. */
  redactions?: number;
}

export function rawDocument(res: ApiResponse): string {
  const request: RawRequestInfo = {
    method: 'GET',
    path: res.path,
    query: res.query,
    status: res.status,
    received_at: res.receivedAt,
    ...(res.redactions ? { redactions: res.redactions } : {}),
  };
  return `{"request":${JSON.stringify(request)},"body":${res.bodyText}}`;
}

/** Lands the response; the file as the manifest lists it (with its redactions, if any). */
export async function landRaw(
  store: ObjectStore,
  run: RunCoordinates,
  res: ApiResponse,
): Promise<ManifestFile> {
  const parts: RawKeyParts = {
    endpoint: res.call.endpoint,
    account: run.account,
    runDate: run.runDate,
    runId: run.runId,
  };
  if (res.call.brandId !== undefined) parts.brandId = res.call.brandId;
  // Visibility calls have a window too, but only buyer-intent keeps one file per window.
  if (res.call.endpoint === 'buyer-intent' && res.call.days !== undefined) parts.days = res.call.days;
  const stored = await store.put(rawKey(parts), rawDocument(res), { contentType: 'application/json' });
  return withRedactions(stored, res.redactions);
}

/** A raw file as the manifest lists it: its redactions counted when there were any. */
export function withRedactions(file: StoredObject, redactions: number | undefined): ManifestFile {
  return redactions ? { ...file, redactions } : file;
}

/** Reads a landed raw file back (replay). */
export function parseRawDocument(bytes: Buffer): { request: RawRequestInfo; body: unknown } {
  return JSON.parse(bytes.toString('utf8')) as { request: RawRequestInfo; body: unknown };
}

/**
 * The workspace id a raw file was fetched for, from its request path as sent
 * (`[base path]/brands/{encoded id}` for brand, `…/brands/{encoded id}/{endpoint}` for the others).
 * A workspace key too long for a file name is hashed, and this is where its id lives.
 */
export function brandIdOfRequest(endpoint: RawEndpoint, request: RawRequestInfo): string | undefined {
  const segments = request.path.split('/');
  const at = segments.length - (endpoint === 'brand' ? 1 : 2);
  if (at < 1 || segments[at - 1] !== 'brands') return undefined;
  try {
    return decodeSegment(segments[at] as string);
  } catch {
    return undefined;
  }
}
