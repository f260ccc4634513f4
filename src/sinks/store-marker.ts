// The store's marker, `_visync/store.json`: which release last wrote the store, and in which store
// format (src/util/writer.ts). A command that writes (run, replay, report into the store, the
// worker) claims the store first: one GET, cheaper than finding the newest manifest of every
// account (a listing per prefix) and the same for runs and reports. A store a newer release wrote
// is refused before anything is called or written, so an older release never rewrites what a newer
// one wrote; a store without a marker (new, or written before markers) or with an older one gets
// this release's. A release only ever raises the marker, and only one that may write the store.
import { VisyncError } from '../util/errors.js';
import {
  compareVersions,
  FORMAT_VERSIONS,
  packageVersion,
  parseVersion,
  type WrittenBy,
  writtenBy,
} from '../util/writer.js';
import { type ObjectStore, putJsonObject } from './object-store.js';

export const STORE_MARKER_KEY = '_visync/store.json';

/** A store this release must not write: a newer release wrote it, or its marker is not one it reads. */
export class StoreTooNewError extends VisyncError {
  get code() {
    return 'store_too_new' as const;
  }

  constructor(message: string) {
    super(message);
    this.name = 'StoreTooNewError';
  }
}

const OTHER_STORE = 'point sinks.fs.dir or sinks.s3.prefix at another store';

/** What the marker says, or why this release cannot take it. */
export type MarkerVerdict =
  | { write: 'none' }
  | { write: 'marker' }
  | { write: 'refused'; reason: 'newer'; version: string }
  | { write: 'refused'; reason: 'unreadable' };

/** Pure: what to do with a store whose marker is `marker` (undefined: none), for this `version`. */
export function markerVerdict(marker: unknown, version: string): MarkerVerdict {
  if (marker === undefined) return { write: 'marker' };
  // Anything but an object (a torn or foreign file read as null, a number) names no version.
  const m = (typeof marker === 'object' && marker !== null ? marker : {}) as Partial<WrittenBy>;
  const ours = parseVersion(version);
  // No package.json beside the code (a broken install): nothing to compare, and no marker to write.
  if (!ours) return { write: 'none' };
  const theirs = parseVersion(m.writer?.version);
  if (!theirs || typeof m.format_version !== 'number') return { write: 'refused', reason: 'unreadable' };
  const byVersion = compareVersions(theirs, ours);
  if (byVersion > 0 || m.format_version > FORMAT_VERSIONS.store)
    return { write: 'refused', reason: 'newer', version: m.writer?.version as string };
  return byVersion < 0 || m.format_version < FORMAT_VERSIONS.store ? { write: 'marker' } : { write: 'none' };
}

/**
 * Claims `store` for writing by this release: refuses (StoreTooNewError) a store a newer release
 * wrote, and writes this release's marker where there is none or an older one.
 */
export async function claimStore(store: ObjectStore): Promise<void> {
  const bytes = await store.get(STORE_MARKER_KEY);
  let marker: unknown;
  try {
    marker = bytes ? (JSON.parse(bytes.toString('utf8')) as unknown) : undefined;
  } catch {
    marker = null;
  }
  const version = packageVersion();
  const verdict = markerVerdict(marker, version);
  const at = store.location;
  if (verdict.write === 'refused')
    throw new StoreTooNewError(
      verdict.reason === 'newer'
        ? `this store (${at}) was written by visibility-sync ${verdict.version}, newer than this ${version}; ` +
            `upgrade (npm install -g ./visibility-sync-${verdict.version}.tgz, or its image) or ${OTHER_STORE}`
        : `this store (${at}) has a marker ${STORE_MARKER_KEY} this release (${version}) cannot read: ` +
            `a newer release may have written it; upgrade, or ${OTHER_STORE}`,
    );
  if (verdict.write === 'marker') await putJsonObject(store, STORE_MARKER_KEY, writtenBy('store'));
}
