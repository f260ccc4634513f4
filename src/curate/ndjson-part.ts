// How a curated part is stored: whole NDJSON text gzipped in one call, with the content type and
// encoding a reader (and S3) sees. One home, so every part under tables/ is written the same way.
import { promisify } from 'node:util';
import { gzip, gzipSync, type ZlibOptions } from 'node:zlib';
import type { ObjectStore, StoredObject } from '../sinks/object-store.js';

/**
 * Level 3, not zlib's default 6: on the simulator's parts (24 parts of a run, 18 KB of NDJSON at the
 * median) 150 us of CPU a part against 340, for 14% more bytes (a ratio of 11.5 against 13.2).
 * Gzip is most of what curating a run costs, and parts are small next to what storing them costs.
 */
const PART_GZIP: ZlibOptions = { level: 3 };

/** The stored bytes of a part: `text` is NDJSON lines, each ending in a newline. */
export function ndjsonPartBytes(text: string): Buffer {
  return gzipSync(text, PART_GZIP);
}

const gzipAsync = promisify(gzip);

/**
 * Parts up to this many UTF-16 units are gzipped in place. Handing one to libuv's pool and back
 * cost more than compressing it (measured at the default level): an 8 KB part 250-420 us of CPU
 * through the pool against 45-100 us in place, a 77 KB one 660-750 against 360-440 (2,000 of each
 * on this repo's 2-core benchmark machine, docs/benchmarks.md), and most parts are a day's rows of one
 * account, a few KB. In place, a part this size blocks the event loop for about 2 ms at most.
 */
const IN_PLACE_GZIP_MAX = 256 * 1024;

/**
 * ndjsonPartBytes, off the main thread (libuv's pool) for a large part: a worker curating runs keeps
 * answering its API calls meanwhile, so the accounts whose windows are due are not slowed by
 * another's load.
 */
export function ndjsonPartBytesAsync(text: string): Promise<Buffer> {
  if (text.length <= IN_PLACE_GZIP_MAX) return Promise.resolve(ndjsonPartBytes(text));
  return gzipAsync(text, PART_GZIP);
}

export function putNdjsonPart(store: ObjectStore, key: string, bytes: Buffer): Promise<StoredObject> {
  return store.put(key, bytes, { contentType: 'application/x-ndjson', contentEncoding: 'gzip' });
}
