// Local-disk object store with the same key layout as S3. Writes go to a temporary file and are
// renamed into place, so a reader (or a crash) never sees half a file under its final name.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { sha256Hex } from '../util/hash.js';
import { assertSafeKey, type ObjectStore, type PutOptions, type StoredObject } from './object-store.js';

export class FsObjectStore implements ObjectStore {
  readonly location: string;
  readonly #root: string;

  constructor(dir: string) {
    this.#root = resolve(dir);
    this.location = dir;
  }

  #path(key: string): string {
    assertSafeKey(key);
    return join(this.#root, ...key.split('/'));
  }

  async put(key: string, body: Uint8Array | string, _options: PutOptions): Promise<StoredObject> {
    const path = this.#path(key);
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
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

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    // Walk only the folder the prefix names, not the whole store.
    const cut = prefix.lastIndexOf('/');
    const folder = cut < 0 ? this.#root : join(this.#root, ...prefix.slice(0, cut).split('/'));
    await this.#walk(folder, out);
    return out
      .map((p) => relative(this.#root, p).split(sep).join('/'))
      .filter((k) => k.startsWith(prefix) && !k.includes('.tmp-'))
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
