// TEST HOOK, not a feature: with VISYNC_TEST_CRASH_AT set, `visync run --once` kills itself with
// SIGKILL at the named point, so a test can crash a real process exactly there and check that the
// next run completes the crashed one (test/crash-points.test.ts). Unset, nothing is wrapped.
//   raw:N          after the N-th raw file landed
//   curate         after the first curated part was written
//   between-loads  after the first table's load job finished
//   manifest       just before the manifest is written
import type { LoadResult } from '../../records/manifest.js';
import { parseManifestKey } from '../../sinks/layout.js';
import type { ObjectStore, PutOptions } from '../../sinks/object-store.js';

export interface CrashHooks {
  store: ObjectStore;
  onLoaded?: (load: LoadResult) => void;
}

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL');
};

export function crashHooks(store: ObjectStore, at = process.env.VISYNC_TEST_CRASH_AT): CrashHooks {
  if (!at) return { store };
  const [point, n] = at.split(':');
  if (point === 'between-loads') return { store, onLoaded: die };
  let rawPuts = 0;
  const wrapped: ObjectStore = {
    location: store.location,
    get: (key) => store.get(key),
    list: (prefix) => store.list(prefix),
    delete: (key) => store.delete(key),
    async put(key: string, body: Uint8Array | string, options: PutOptions) {
      if (point === 'manifest' && parseManifestKey(key)) die();
      const stored = await store.put(key, body, options);
      if (point === 'raw' && key.startsWith('raw/') && ++rawPuts >= Number(n ?? 1)) die();
      if (point === 'curate' && key.startsWith('tables/')) die();
      return stored;
    },
  };
  return { store: wrapped };
}
