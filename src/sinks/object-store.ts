// The one interface every object store implements (fs now, S3 later), kept small on purpose:
// the pipeline only ever writes whole objects, reads them back, and lists a prefix (`visync doctor`
// also deletes the probe object it wrote, and a run --once its lease).

export interface PutOptions {
  contentType: string;
  contentEncoding?: string;
}

/** What was stored: the manifest records exactly this for every file. */
export interface StoredObject {
  key: string;
  bytes: number;
  /** Hex SHA-256 of the stored bytes. */
  sha256: string;
}

export interface ObjectStore {
  /** Human-readable location for messages, e.g. `./data` or `s3://bucket/prefix/`. */
  readonly location: string;
  /** Writes (or overwrites) one object whole. */
  put(key: string, body: Uint8Array | string, options: PutOptions): Promise<StoredObject>;
  /** Reads one object; undefined when it does not exist. */
  get(key: string): Promise<Buffer | undefined>;
  /** Keys under a prefix, sorted. */
  list(prefix: string): Promise<string[]>;
  /**
   * One key under a prefix that `accept` admits, or undefined: whether there is any, reading as few
   * keys as the store can (S3: a listing of one key, paging on only past refused keys; fs: the walk
   * stops at the first), so the answer costs the same for a folder of ten files or of a million.
   * Which key, when several are admitted, is the store's choice. A store without it is listed whole.
   */
  findKey?(prefix: string, accept: (key: string) => boolean): Promise<string | undefined>;
  /**
   * Writes one object only if none exists under the key (fs: a hard link, which fails on an
   * existing name; S3: PutObject with If-None-Match: *): false when one exists. A claim in the store
   * (src/delivery/claims/claims.ts); a store without it cannot hold claims.
   */
  putIfAbsent?(key: string, body: Uint8Array | string, options: PutOptions): Promise<boolean>;
  /** Removes one object (on disk, with the folders it leaves empty); a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Releases what the store holds open (an S3 client's sockets); a store with nothing open has none. */
  close?(): void;
  /**
   * A URL anyone can GET `key` with until `expiresInSeconds` after `now` (an S3 presigned URL;
   * docs/reports.md, "A link to the report"). Only a store with an address a client can reach has it.
   */
  presignGet?(key: string, expiresInSeconds: number, now: Date): Promise<string>;
}

/**
 * Refuses keys that could leave the store's root or that a store would silently rewrite.
 * Keys are built by sinks/layout.ts, so this is a guard against bugs, not user input.
 */
export function assertSafeKey(key: string): void {
  // UNSAFE_SEGMENT: an empty, `.` or `..` segment (one test per key, not a split: a store checks
  // every key it writes or reads).
  if (
    key === '' ||
    key.startsWith('/') ||
    key.includes('\\') ||
    key.includes('\0') ||
    UNSAFE_SEGMENT.test(key)
  ) {
    throw new Error(`unsafe object key: ${JSON.stringify(key)}`);
  }
}

const UNSAFE_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** Writes a small JSON document (a run's lease or plan). */
export function putJsonObject(store: ObjectStore, key: string, value: unknown): Promise<StoredObject> {
  return store.put(key, `${JSON.stringify(value)}\n`, { contentType: 'application/json' });
}

/** A small JSON document; undefined when it is missing or does not parse (a torn write says nothing). */
export async function readJsonObject<T>(store: ObjectStore, key: string): Promise<T | undefined> {
  const bytes = await store.get(key);
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}
