// Folders of files written whole (`visync export athena --split DIR`, `visync export dbt --out DIR`):
// every file is first written into a fresh temporary folder beside the target, so a refusal or a
// full disk changes nothing there. Then:
// - replaceFolder: the temporary folder takes the target's name (two renames), so no file of an
//   earlier export stays beside the new ones. A folder holding anything else is refused, not
//   emptied: someone else's file is not ours to remove.
// - mergeIntoFolder: each file is renamed over its name in the target, whose other files (a dbt
//   project's target/, logs/, the user's own models) stay; every path is checked before the first.
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  ensureFolders,
  entry,
  makeFolders,
  reason,
  refuseLink,
  WriteRefused,
  writeInTree,
} from './safe-write.js';

/** `athena/` as `athena`: the folder is renamed by its own name. */
const withoutTrailingSlash = (dir: string) => dir.replace(/(?<=.)\/+$/, '');

export interface TreeFile {
  /** Relative to the folder, `/`-separated. */
  path: string;
  text: string;
}

/** `files` written into a new folder beside `dir` (its path returned); removed again when a write fails. */
async function staged(dir: string, files: readonly TreeFile[]): Promise<string> {
  await makeFolders(dirname(dir));
  const temp = join(dirname(dir), `.${basename(dir)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    for (const f of files) {
      const parts = f.path.split('/');
      await writeInTree(temp, parts.slice(0, -1), parts.at(-1) as string, f.text);
    }
    return temp;
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw err;
  }
}

/** What is at `dir`: nothing, a folder, or a refusal (a file, or a link where a link is not taken). */
async function folderAt(dir: string, followLink: boolean): Promise<boolean> {
  const st = await entry(dir);
  if (!st) return false;
  if (st.isSymbolicLink() && !followLink) refuseLink(dir);
  const target = st.isSymbolicLink() ? await stat(dir).catch(() => undefined) : st;
  if (!target?.isDirectory())
    throw new WriteRefused(`cannot write into ${dir}: it is a file, not a folder`, true);
  return true;
}

/**
 * `dir` becomes a folder of exactly `files`. An existing `dir` may hold only names `ours` accepts
 * (what an earlier export wrote); anything else is refused in one line and nothing is changed.
 */
export async function replaceFolder(
  folder: string,
  files: readonly TreeFile[],
  ours: (name: string) => boolean,
): Promise<void> {
  const dir = withoutTrailingSlash(folder);
  const exists = await folderAt(dir, false);
  if (exists) {
    const foreign = (await readdir(dir, { withFileTypes: true })).find((e) => !e.isFile() || !ours(e.name));
    if (foreign)
      throw new WriteRefused(
        `refusing to replace ${dir}: it holds ${foreign.name}, which visync did not write; choose a new or empty folder`,
        true,
      );
  }
  const temp = await staged(dir, files);
  const old = `${temp.replace(/\.tmp$/, '')}.old`;
  let moved = false;
  try {
    if (exists) {
      await rename(dir, old);
      moved = true;
    }
    await rename(temp, dir);
  } catch (err) {
    // The earlier folder back in its place: a failed export leaves what was there.
    if (moved) await rename(old, dir).catch(() => undefined);
    await rm(temp, { recursive: true, force: true });
    throw new WriteRefused(`cannot write ${dir}: ${reason(err)}`);
  }
  await rm(old, { recursive: true, force: true });
}

/**
 * `files` written into `dir` (made whole from a temporary folder when missing), each renamed over
 * its name; the folder's other files stay. A link or a file where a folder or file of `files` goes
 * is refused before anything is written.
 */
export async function mergeIntoFolder(folder: string, files: readonly TreeFile[]): Promise<void> {
  const dir = withoutTrailingSlash(folder);
  // The folder a person names may be a link they chose; links inside it are refused.
  const exists = await folderAt(dir, true);
  if (exists) for (const f of files) await checkPath(dir, f.path.split('/'));
  const temp = await staged(dir, files);
  try {
    if (!exists) {
      await rename(temp, dir);
      return;
    }
    for (const f of files) {
      const parts = f.path.split('/');
      const into = await ensureFolders(dir, parts.slice(0, -1));
      await rename(join(temp, ...parts), join(into, parts.at(-1) as string));
    }
  } catch (err) {
    throw err instanceof WriteRefused ? err : new WriteRefused(`cannot write into ${dir}: ${reason(err)}`);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Each folder of `parts` below `dir` is a folder or missing, the file a file or missing; no link. */
async function checkPath(dir: string, parts: readonly string[]): Promise<void> {
  let at = dir;
  for (const [i, part] of parts.entries()) {
    at = join(at, part);
    const st = await entry(at);
    if (!st) return;
    if (st.isSymbolicLink()) refuseLink(at);
    const last = i === parts.length - 1;
    if (last && st.isDirectory()) throw new WriteRefused(`cannot write ${at}: it is a folder, not a file`);
    if (!last && !st.isDirectory()) throw new WriteRefused(`cannot write into ${at}: it is not a folder`);
  }
}
