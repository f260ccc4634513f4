// Claims held in the object store (src/delivery/claims/claims.ts), on the real stores: the fs store's
// create-if-absent (many at once, exactly one wins), s3rver's (over HTTP with the real SDK: it
// ignores If-None-Match, so the look before the put decides), a dead holder taken over at once, a
// live one never, and a once-marker kept until its lease ends.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { currentOwner, storeClaimKey, storeClaims } from '../src/delivery/claims/claims.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import { tempDir } from './helpers/harness.js';
import { s3rverStore } from './helpers/s3rver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const json = { contentType: 'application/json' };

const s3Store = () => s3rverStore(cleanups, 'claims');

/** The pid of a process that ran and is gone. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => child.once('exit', r));
  return child.pid as number;
}

describe('claims in the object store', () => {
  it('fs: of twenty creates of one key at once exactly one wins; the object is whole', async () => {
    const store = new FsObjectStore(tempDir());
    const won = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.putIfAbsent('claims/k.json', `{"i":${i}}\n`, json)),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    const i = won.indexOf(true);
    expect((await store.get('claims/k.json'))?.toString()).toBe(`{"i":${i}}\n`);
    // No temporary file left beside it.
    expect(await store.list('claims/')).toEqual(['claims/k.json']);
  });

  for (const kind of ['fs', 's3'] as const)
    it(`${kind}: a claim is held until released; a dead holder's is taken over at once, a live one's never`, async () => {
      const store: ObjectStore = kind === 'fs' ? new FsObjectStore(tempDir()) : await s3Store();
      const claims = storeClaims(store);
      if (!claims) throw new Error('the store cannot hold claims');
      expect(await claims.take('report-send:a', 300, { whileAlive: true })).toBe(true);
      expect(await claims.take('report-send:a', 300, { whileAlive: true })).toBe(false);
      await claims.release('report-send:a');
      expect(await store.list('claims/')).toEqual([]);
      expect(await claims.take('report-send:a', 300, { whileAlive: true })).toBe(true);
      await claims.release('report-send:a');

      // Left by a process of this host that is gone: taken over now, though its lease runs on.
      const lease = new Date(Date.now() + 3_600_000).toISOString();
      const dead = { ...currentOwner(), pid: await deadPid(), expires_at: lease };
      await store.put(storeClaimKey('report-send:b'), JSON.stringify(dead), json);
      expect(await claims.take('report-send:b', 300, { whileAlive: true })).toBe(true);
      // This process's pid from an earlier start (a restarted container's pid 1): gone too.
      const earlier = { ...currentOwner(), started_at: '2026-01-01T00:00:00.000Z', expires_at: lease };
      await store.put(storeClaimKey('report-send:f'), JSON.stringify(earlier), json);
      expect(await claims.take('report-send:f', 300, { whileAlive: true })).toBe(true);
      // A once-marker (not whileAlive) of a dead process stays until its lease ends.
      await store.put(storeClaimKey('alert:c'), JSON.stringify(dead), json);
      expect(await claims.take('alert:c', 300)).toBe(false);
      // Held by a live process (the parent of this one), within its lease: never taken.
      const live = { ...currentOwner(), pid: process.ppid, expires_at: lease };
      await store.put(storeClaimKey('report-send:d'), JSON.stringify(live), json);
      expect(await claims.take('report-send:d', 300, { whileAlive: true })).toBe(false);
      // Another host's: only once its lease ran out.
      const other = { ...live, host: 'ffffff', expires_at: new Date(Date.now() - 1000).toISOString() };
      await store.put(storeClaimKey('report-send:e'), JSON.stringify(other), json);
      expect(await claims.take('report-send:e', 300, { whileAlive: true })).toBe(true);
      // Release gives back only one's own.
      await claims.release('report-send:d');
      expect(await store.get(storeClaimKey('report-send:d'))).toBeDefined();
    });
});
