// Raw landing: every successful response body, unchanged, wrapped with what was asked. The body
// is spliced in as text rather than re-serialised, so its bytes are exactly what the API sent.
import type { ApiResponse } from '../api/client.js';
import { type RawEndpoint, rawKey } from '../sinks/layout.js';
import type { ObjectStore, StoredObject } from '../sinks/object-store.js';

export interface RawRequestInfo {
  method: 'GET';
  path: string;
  query: Record<string, string>;
  status: number;
  received_at: string;
}

export interface RunRef {
  account: string;
  runId: string;
  runDate: string;
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

export async function landRaw(store: ObjectStore, run: RunRef, res: ApiResponse): Promise<StoredObject> {
  const key = rawKey({
    endpoint: res.call.endpoint as RawEndpoint,
    account: run.account,
    runDate: run.runDate,
    runId: run.runId,
    ...(res.call.brandId !== undefined ? { brandId: res.call.brandId } : {}),
    ...(res.call.endpoint === 'buyer-intent' && res.call.days !== undefined ? { days: res.call.days } : {}),
  });
  return store.put(key, rawDocument(res), { contentType: 'application/json' });
}

/** Reads a landed raw file back (replay). */
export function parseRawDocument(bytes: Buffer): { request: RawRequestInfo; body: unknown } {
  return JSON.parse(bytes.toString('utf8')) as { request: RawRequestInfo; body: unknown };
}
