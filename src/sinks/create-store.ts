import type { SinksConfig } from '../config/schema.js';
import { FsObjectStore } from './fs-store.js';
import type { ObjectStore } from './object-store.js';
import { S3ObjectStore } from './s3-store.js';

/** The configured object store (raw, curated, manifests, latest). */
export function createObjectStore(sinks: SinksConfig): ObjectStore {
  if (sinks.s3) return new S3ObjectStore(sinks.s3);
  if (sinks.fs) return new FsObjectStore(sinks.fs.dir);
  throw new Error('no object store configured: set sinks.fs or sinks.s3');
}
