// Files written where a person asked (`visync report --out DIR`, `visync export --out FILE`): never
// through a symbolic link planted inside the tree, never half-written. Each file goes to a new
// temporary name in its own folder (O_EXCL, O_NOFOLLOW), then is renamed over its name: a reader
// sees the old file or the whole new one, and a full disk leaves neither a 0-byte nor a partial file.
// A symbolic link where a folder or file of the tree should be is refused, not followed or removed:
// someone put it there, and writing through it would put a report wherever it points.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Why a file could not be written, in one line: the path and the system's reason. `usage`: the
 * path asked for cannot be what it must be (a file where a folder is needed, or the reverse):
 * a usage error (src/cli/exit-codes.ts), not a failure a retry could fix.
 */
export class WriteRefused extends Error {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
    this.name = 'WriteRefused';
  }
}

export const reason = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  return e.code === 'ENOSPC' ? 'no space left on device' : (e.message ?? String(err));
};

/** lstat, or undefined for a path that does not exist. */
export async function entry(path: string) {
  return lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new WriteRefused(`cannot write ${path}: ${reason(err)}`);
  });
}

export function refuseLink(path: string): never {
  throw new WriteRefused(
    `refusing to write through the symbolic link ${path}: it was not made by visync; remove it or choose another --out`,
  );
}

/**
 * Makes `dir` and the folders above it that are missing. A file where one of them should be is
 * refused in one line (a usage error: the path given cannot be a folder), never an EEXIST.
 */
export async function makeFolders(dir: string): Promise<void> {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const st = await stat(at).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw new WriteRefused(`cannot make ${dir}: ${reason(err)}`);
    });
    if (st?.isDirectory()) break;
    if (st) throw new WriteRefused(`cannot make the folder ${dir}: ${at} is a file, not a folder`, true);
    missing.unshift(at);
    if (dirname(at) === at) break;
    at = dirname(at);
  }
  for (const m of missing)
    await mkdir(m).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw new WriteRefused(`cannot make ${m}: ${reason(err)}`);
    });
}

/** The folders `parts` below `root` (which may itself be a link a person chose), none a link. */
export async function ensureFolders(root: string, parts: readonly string[]): Promise<string> {
  let dir = root;
  await makeFolders(root);
  for (const part of parts) {
    dir = join(dir, part);
    const st = await entry(dir);
    if (st?.isSymbolicLink()) refuseLink(dir);
    if (st && !st.isDirectory()) throw new WriteRefused(`cannot write into ${dir}: it is not a folder`);
    if (!st)
      await mkdir(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw new WriteRefused(`cannot make ${dir}: ${reason(err)}`);
      });
  }
  return dir;
}

/** `body` to `file` whole, through a temporary file in the same folder; a link at `file` is refused. */
async function writeFileWhole(file: string, body: string | Uint8Array): Promise<void> {
  const st = await entry(file);
  if (st?.isSymbolicLink()) refuseLink(file);
  if (st?.isDirectory())
    throw new WriteRefused(`cannot write ${file}: it is a folder; give a file name`, true);
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const handle = await open(temp, flags, 0o644);
    try {
      await handle.writeFile(body);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    // rename replaces whatever is at `file` (a link planted since the check included), never follows it.
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err instanceof WriteRefused ? err : new WriteRefused(`cannot write ${file}: ${reason(err)}`);
  }
}

/** `body` to `file` whole (writeFileWhole), the folders above it made as needed (makeFolders). */
export async function writeFileMakingFolders(file: string, body: string | Uint8Array): Promise<void> {
  await makeFolders(dirname(file));
  await writeFileWhole(file, body);
}

/** `body` to `root/...folders/name`, the folders made as needed, none of them a link. */
export async function writeInTree(
  root: string,
  folders: readonly string[],
  name: string,
  body: string | Uint8Array,
): Promise<string> {
  const file = join(await ensureFolders(root, folders), name);
  await writeFileWhole(file, body);
  return file;
}

/**
 * Removes `root/...folders/name` when it is there (a report's format not made again). The folders
 * were checked by the write before it; a link at `name` is refused like a write through it: someone
 * put it there.
 */
export async function removeInTree(root: string, folders: readonly string[], name: string): Promise<void> {
  const file = join(root, ...folders, name);
  const st = await entry(file);
  if (!st) return;
  if (st.isSymbolicLink())
    throw new WriteRefused(
      `refusing to remove the symbolic link ${file}: it was not made by visync; remove it or choose another --out`,
    );
  await rm(file).catch((err: unknown) => {
    throw new WriteRefused(`cannot remove ${file}: ${reason(err)}`);
  });
}
