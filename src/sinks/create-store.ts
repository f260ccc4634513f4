import type { SinksConfig } from '../config/schema.js';
import { FsObjectStore } from './fs-store.js';
import type { ObjectStore } from './object-store.js';

/** The configured object store (raw, curated, manifests, latest). */
export function createObjectStore(sinks: SinksConfig): ObjectStore {
  if (sinks.fs) return new FsObjectStore(sinks.fs.dir);
  throw new Error('sinks.s3 is not supported yet: configure sinks.fs');
}
