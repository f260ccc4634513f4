// How a curated part is stored: whole NDJSON text gzipped in one call, with the content type and
// encoding a reader (and S3) sees. One home, so every part under tables/ is written the same way.
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';
import type { ObjectStore, StoredObject } from '../sinks/object-store.js';

/** The stored bytes of a part: `text` is NDJSON lines, each ending in a newline. */
export function ndjsonPartBytes(text: string): Buffer {
  return gzipSync(text);
}

const gzipAsync = promisify(gzip);

/**
 * ndjsonPartBytes off the main thread (libuv's pool): a worker curating runs keeps answering its
 * API calls meanwhile, so the accounts whose windows are due are not slowed by another's load.
 */
export function ndjsonPartBytesAsync(text: string): Promise<Buffer> {
  return gzipAsync(text);
}

export function putNdjsonPart(store: ObjectStore, key: string, bytes: Buffer): Promise<StoredObject> {
  return store.put(key, bytes, { contentType: 'application/x-ndjson', contentEncoding: 'gzip' });
}
