// Raw landing: every successful response body, unchanged, wrapped with what was asked. The body
// is spliced in as text rather than re-serialised, so its bytes are exactly what the API sent.
import type { ApiResponse } from '../api/client.js';
import type { RawEndpoint } from '../api/endpoints.js';
import type { RunCoordinates } from '../runs/run-coordinates.js';
import { type RawKeyParts, rawKey } from '../sinks/layout.js';
import type { ObjectStore, StoredObject } from '../sinks/object-store.js';
import { decodeSegment } from '../util/path-segment.js';

export interface RawRequestInfo {
  method: 'GET';
  path: string;
  query: Record<string, string>;
  status: number;
  received_at: string;
}

export function rawDocument(res: ApiResponse): string {
  const request: RawRequestInfo = {
    method: 'GET',
    path: res.path,
    query: res.query,
    status: res.status,
    received_at: res.receivedAt,
  };
  return `{"request":${JSON.stringify(request)},"body":${res.bodyText}}`;
}

export async function landRaw(
  store: ObjectStore,
  run: RunCoordinates,
  res: ApiResponse,
): Promise<StoredObject> {
  const parts: RawKeyParts = {
    endpoint: res.call.endpoint,
    account: run.account,
    runDate: run.runDate,
    runId: run.runId,
  };
  if (res.call.brandId !== undefined) parts.brandId = res.call.brandId;
  // Visibility calls have a window too, but only buyer-intent keeps one file per window.
  if (res.call.endpoint === 'buyer-intent' && res.call.days !== undefined) parts.days = res.call.days;
  return store.put(rawKey(parts), rawDocument(res), { contentType: 'application/json' });
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
