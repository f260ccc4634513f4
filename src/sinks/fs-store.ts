// Local-disk object store with the same key layout as S3. Writes go to a temporary file and are
// renamed into place, so a reader (or a crash) never sees half a file under its final name.
//
// A temporary file sits in the folder of its key (same file system, so the rename is atomic) under
// a name starting with `@`. No key has such a file name: layout.ts builds file names from fixed
// words and percent-encoded ids, and encodeURIComponent always writes `@` as `%40`. So list()
// skips exactly the temporary files and never a real key (such as workspace `x.tmp-1`). The name
// is short and fixed in length, so it fits wherever the key's own file name fits.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { sha256Hex } from '../util/hash.js';
import { assertSafeKey, type ObjectStore, type PutOptions, type StoredObject } from './object-store.js';

const TEMP_MARK = '@tmp-';

function isTempName(fileName: string): boolean {
  return fileName.startsWith(TEMP_MARK);
}

export class FsObjectStore implements ObjectStore {
  readonly location: string;
  readonly #root: string;

  constructor(dir: string) {
    this.#root = resolve(dir);
    this.location = dir;
  }

  #path(key: string): string {
    assertSafeKey(key);
    const path = join(this.#root, ...key.split('/'));
    if (isTempName(basename(path))) throw new Error(`unsafe object key (a temporary file name): ${key}`);
    return path;
  }

  async put(key: string, body: Uint8Array | string, _options: PutOptions): Promise<StoredObject> {
    const path = this.#path(key);
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    await mkdir(dirname(path), { recursive: true });
    const tmp = join(dirname(path), `${TEMP_MARK}${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      await writeFile(tmp, bytes);
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw new Error(`cannot write ${path}: ${(err as Error).message}`);
    }
    return { key, bytes: bytes.byteLength, sha256: sha256Hex(bytes) };
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.#path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    // Walk only the folder the prefix names, not the whole store.
    const cut = prefix.lastIndexOf('/');
    const folder = cut < 0 ? this.#root : join(this.#root, ...prefix.slice(0, cut).split('/'));
    await this.#walk(folder, out);
    return out
      .filter((p) => !isTempName(basename(p)))
      .map((p) => relative(this.#root, p).split(sep).join('/'))
      .filter((k) => k.startsWith(prefix))
      .sort();
  }

  async #walk(dir: string, out: string[]): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await this.#walk(p, out);
      else if (e.isFile()) out.push(p);
    }
  }
}
