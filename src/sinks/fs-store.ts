// Local-disk object store with the same key layout as S3. Writes go to a temporary file and are
// renamed into place, so a reader (or a crash) never sees half a file under its final name.
//
// A temporary file sits in the folder of its key (same file system, so the rename is atomic) under
// a name starting with `@`. No key has such a file name: layout.ts builds file names from fixed
// words and percent-encoded ids, and encodeURIComponent always writes `@` as `%40`. So list()
// skips exactly the temporary files and never a real key (such as workspace `x.tmp-1`). The name
// is short, so it fits wherever the key's own file name fits.
//
// A writer killed mid-write leaves its temporary file behind. Writing into a folder first removes
// (at most once a minute per folder and store) the temporary files of writers that can no longer
// finish: those of this host whose process is gone, and any older than an hour (no write takes
// that long).
//
// A put is a write and a rename (the folder is made once a minute with the sweep), and a get one
// read, all made synchronously: a worker lands a body per request and reads each back to curate it,
// and on 2 cores a small file through libuv's thread pool cost about six times the CPU of the same
// calls made in place (write + rename + read of a 3 KB file: 460 us against 80 us, the rest in
// waking pool threads and their contention), which was a third of the worker's CPU per request.
// The price: a call blocks the event loop for as long as the disk takes, so this store is meant for
// a local disk; on a network file system that can stall for seconds, use the S3 sink (README).
import { randomBytes } from 'node:crypto';
import { type Dir, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { opendir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { sha256Hex } from '../util/hash.js';
import { ownerGone, ownerMark } from '../util/process-owner.js';
import { assertSafeKey, type ObjectStore, type PutOptions, type StoredObject } from './object-store.js';

const TEMP_MARK = '@tmp-';

function isTempName(fileName: string): boolean {
  return fileName.startsWith(TEMP_MARK);
}

const ABANDONED_AFTER_MS = 3_600_000;
const SWEEP_EVERY_MS = 60_000;

/** Random once per process (a pid is reused after a restart), then a counter: unique per write. */
const PROCESS_MARK = randomBytes(4).toString('hex');
let writes = 0;

/** `@tmp-<host>-<pid>-<unique>`: the temporary name of a write by process `pid` of this host. */
export function tempFileName(pid = process.pid): string {
  return `${TEMP_MARK}${ownerMark(pid)}-${PROCESS_MARK}${(++writes).toString(36)}`;
}

async function abandoned(path: string, name: string): Promise<boolean> {
  if (ownerGone(name.slice(TEMP_MARK.length))) return true;
  try {
    return Date.now() - (await stat(path)).mtimeMs > ABANDONED_AFTER_MS;
  } catch {
    return false; // renamed or removed meanwhile
  }
}

export class FsObjectStore implements ObjectStore {
  readonly location: string;
  readonly #root: string;
  /** Folder -> when this store last swept it. */
  readonly #swept = new Map<string, number>();

  constructor(dir: string) {
    this.#root = resolve(dir);
    this.location = dir;
  }

  #path(key: string): string {
    assertSafeKey(key);
    // A safe key has no empty, `.` or `..` segment: joined as is, without join()'s normalising
    // (a cost on every put and get), where `/` is the separator.
    const path = sep === '/' ? `${this.#root}/${key}` : join(this.#root, ...key.split('/'));
    if (isTempName(basename(path))) throw new Error(`unsafe object key (a temporary file name): ${key}`);
    return path;
  }

  async put(key: string, body: Uint8Array | string, _options: PutOptions): Promise<StoredObject> {
    const path = this.#path(key);
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const folder = dirname(path);
    await this.#prepare(folder);
    const tmp = join(folder, tempFileName());
    try {
      try {
        writeFileSync(tmp, bytes);
      } catch (err) {
        // The folder went away since it was made (removed by hand, a test's cleanup): once more.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        await this.#prepare(folder, true);
        writeFileSync(tmp, bytes);
      }
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw new Error(`cannot write ${path}: ${errorMessage(err)}`);
    }
    return { key, bytes: bytes.byteLength, sha256: sha256Hex(bytes) };
  }

  async putIfAbsent(key: string, body: Uint8Array | string, _options: PutOptions): Promise<boolean> {
    const path = this.#path(key);
    const folder = dirname(path);
    await this.#prepare(folder);
    // Written whole under a temporary name, then linked: link(2) fails on an existing name, so of
    // two processes exactly one gets the key, and a reader never sees half an object.
    const tmp = join(folder, tempFileName());
    try {
      try {
        writeFileSync(tmp, body);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        await this.#prepare(folder, true);
        writeFileSync(tmp, body);
      }
      linkSync(tmp, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw new Error(`cannot write ${path}: ${errorMessage(err)}`);
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  /**
   * Makes the folder and sweeps it, unless this store did so in the last minute. The folder is
   * made in place, like the write: the puts into one folder come at once (a job's workspaces
   * land side by side), and made through libuv's pool each of them found the folder unmarked
   * and made it again (16 mkdirs a folder, a mkdir per request in all, each a hand-off to a pool
   * thread and back); now the first marks it before any other can look.
   */
  async #prepare(folder: string, again = false): Promise<void> {
    const now = Date.now();
    if (!again && now - (this.#swept.get(folder) ?? 0) < SWEEP_EVERY_MS) return;
    // The first folder it had to create, if any: a folder made just now holds no abandoned file.
    const created = mkdirSync(folder, { recursive: true });
    if (this.#swept.size >= 10_000) this.#swept.clear(); // a long-lived worker: forget old folders
    this.#swept.set(folder, now);
    if (created === undefined) await this.#sweep(folder);
  }

  /** Removes abandoned temporary files from `folder`. */
  async #sweep(folder: string): Promise<void> {
    try {
      for (const name of await readdir(folder)) {
        const p = join(folder, name);
        if (isTempName(name) && (await abandoned(p, name))) await rm(p, { force: true });
      }
    } catch {
      // Cleaning up is a courtesy; the write itself must not fail for it.
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return readFileSync(this.#path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /**
   * Removes the file, then each folder above it left empty, up to the store's root (kept): a key
   * gone leaves no folder behind, as in S3, where folders are only key prefixes (`visync doctor`'s
   * `_doctor/` probe). A put racing into such a folder makes it again (see put).
   */
  async delete(key: string): Promise<void> {
    const path = this.#path(key);
    await rm(path, { force: true });
    for (let folder = dirname(path); folder.startsWith(`${this.#root}${sep}`); folder = dirname(folder)) {
      try {
        await rmdir(folder);
        this.#swept.delete(folder);
      } catch {
        return; // not empty (or gone already): the folders above it are not empty either
      }
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    for await (const key of this.#keys(prefix)) out.push(key);
    return out.sort();
  }

  async findKey(prefix: string, accept: (key: string) => boolean): Promise<string | undefined> {
    for await (const key of this.#keys(prefix)) if (accept(key)) return key;
    return undefined;
  }

  /**
   * The keys under `prefix`, temporary files skipped, depth first in the order the disk gives. Only
   * the folder the prefix names is walked, and in it only the names that continue the prefix
   * (`tables/rep` walks `tables/reputation*`, not `tables/brands`). Each folder is read as it is
   * walked, never whole ahead, so findKey stops after its key with the rest unread.
   */
  async *#keys(prefix: string): AsyncGenerator<string> {
    const cut = prefix.lastIndexOf('/');
    const folder = cut < 0 ? this.#root : join(this.#root, ...prefix.slice(0, cut).split('/'));
    yield* this.#walk(folder, prefix.slice(0, cut + 1), prefix.slice(cut + 1));
  }

  async *#walk(dir: string, dirKey: string, namePrefix: string): AsyncGenerator<string> {
    let entries: Dir;
    try {
      entries = await opendir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for await (const e of entries) {
      if (!e.name.startsWith(namePrefix)) continue;
      if (e.isDirectory()) yield* this.#walk(join(dir, e.name), `${dirKey}${e.name}/`, '');
      else if (e.isFile() && !isTempName(e.name)) yield `${dirKey}${e.name}`;
    }
  }
}
