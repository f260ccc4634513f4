// A writer killed mid-write (SIGKILL, a lost machine) leaves its temporary `@tmp-…` file behind:
// garbage on the user's disk. The fs store removes the temporary files of writers that can no
// longer finish them when it writes into their folder: this host's writers whose process is gone,
// and any older than an hour. Live writers' files are left alone, and no key is ever touched.
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsObjectStore, tempFileName } from '../src/sinks/fs-store.js';
import { deadPid, listFiles, tempDir } from './helpers/harness.js';

const json = { contentType: 'application/json' };

describe('fs store temporary files', () => {
  it('writing into a folder removes the temporary files of dead writers and keeps live ones and every key', async () => {
    const dir = tempDir();
    const folder = join(dir, 'raw', 'brand', 'run=r1');
    mkdirSync(folder, { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    const put = (name: string, old = false) => {
      writeFileSync(join(folder, name), '{"half');
      if (old) utimesSync(join(folder, name), twoHoursAgo, twoHoursAgo);
    };
    const deadHere = tempFileName(deadPid());
    const liveHere = tempFileName(process.pid);
    put(deadHere); // this host's writer, killed a moment ago
    put(liveHere); // a write in progress in this process
    put('@tmp-4242-00aa00aa00aa', true); // any writer, two hours ago
    put('@tmp-4243-00bb00bb00bb'); // a writer not known to be of this host, a moment ago
    put('x.tmp-1.json'); // a key that looks like a temporary name
    const store = new FsObjectStore(dir);
    await store.put('raw/brand/run=r1/w-1.json', '{}', json);

    expect(readdirSync(folder).sort()).toEqual(
      ['@tmp-4243-00bb00bb00bb', liveHere, 'w-1.json', 'x.tmp-1.json'].sort(),
    );
    // Keys only, for whoever lists the store or the folder.
    expect(await store.list('raw/')).toEqual(['raw/brand/run=r1/w-1.json', 'raw/brand/run=r1/x.tmp-1.json']);
    expect(listFiles(dir)).toEqual(['raw/brand/run=r1/w-1.json', 'raw/brand/run=r1/x.tmp-1.json']);
  });
});
