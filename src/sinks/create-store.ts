import type { SinksConfig } from '../config/schema.js';
import { FsObjectStore } from './fs-store.js';
import type { ObjectStore } from './object-store.js';

/**
 * The configured object store (raw, curated, manifests, latest). The S3 adapter, and with it the
 * AWS SDK, is loaded only when sinks.s3 is set: a command on the local disk never pays for it.
 */
export async function createObjectStore(sinks: SinksConfig): Promise<ObjectStore> {
  if (sinks.s3) {
    const { S3ObjectStore } = await import('./s3-store.js');
    return new S3ObjectStore(sinks.s3);
  }
  if (sinks.fs) return new FsObjectStore(sinks.fs.dir);
  throw new Error('no object store configured: set sinks.fs or sinks.s3');
}

/** Creates the store at the first call and returns that one after: for commands that may not need it. */
export function storeWhenNeeded(sinks: SinksConfig): () => Promise<ObjectStore> {
  let store: Promise<ObjectStore> | undefined;
  return () => (store ??= createObjectStore(sinks));
}
