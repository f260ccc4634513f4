// Folders of files written whole (`visync export athena --split DIR`, `visync export dbt --out DIR`):
// every file is first written into a fresh temporary folder beside the target, so a refusal or a
// full disk changes nothing there. Then:
// - replaceFolder: the temporary folder takes the target's name (two renames), so no file of an
//   earlier export stays beside the new ones. A folder holding anything else is refused, not
//   emptied: someone else's file is not ours to remove.
// - mergeIntoFolder: each file is renamed over its name in the target, whose other files (a dbt
//   project's target/, logs/, the user's own models) stay; every path is checked before the first.
//   A record in the folder lists what was written, so that the next export removes what it no
//   longer writes (a model of a view since renamed) and nothing else.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
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
 * its name, with `record` (a file name) listing them; the files an earlier record lists and
 * `files` does not are removed, the folder's other files stay. A link or a file where a folder or
 * file of `files` goes is refused before anything is written.
 */
export async function mergeIntoFolder(
  folder: string,
  files: readonly TreeFile[],
  record: { name: string; header: string },
): Promise<void> {
  const dir = withoutTrailingSlash(folder);
  // The folder a person names may be a link they chose; links inside it are refused.
  const exists = await folderAt(dir, true);
  const all = [
    ...files,
    { path: record.name, text: [record.header, ...files.map((f) => f.path), ''].join('\n') },
  ];
  if (exists) for (const f of all) await checkPath(dir, f.path.split('/'));
  const kept = new Set(all.map((f) => f.path));
  const stale = exists ? await staleFiles(dir, record.name, kept) : [];
  const temp = await staged(dir, all);
  try {
    if (!exists) {
      await rename(temp, dir);
      return;
    }
    for (const f of all) {
      const parts = f.path.split('/');
      const into = await ensureFolders(dir, parts.slice(0, -1));
      await rename(join(temp, ...parts), join(into, parts.at(-1) as string));
    }
    for (const path of stale) await rm(join(dir, ...path.split('/')), { force: true });
  } catch (err) {
    throw err instanceof WriteRefused ? err : new WriteRefused(`cannot write into ${dir}: ${reason(err)}`);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * What the earlier record lists and this export does not write, where it is still a file of ours:
 * a link or folder put there since is left alone, as any file not ours.
 */
async function staleFiles(dir: string, record: string, kept: ReadonlySet<string>): Promise<string[]> {
  const stale: string[] = [];
  for (const path of await recorded(join(dir, record))) {
    if (kept.has(path)) continue;
    const ours = await checkPath(dir, path.split('/')).then(
      () => true,
      () => false,
    );
    if (ours) stale.push(path);
  }
  return stale;
}

/**
 * The paths a record lists: relative, `/`-separated, none leading out of the folder (a record
 * someone edited names nothing outside it). No record: none.
 */
async function recorded(file: string): Promise<string[]> {
  const st = await entry(file);
  if (!st) return [];
  if (!st.isFile()) refuseLink(file);
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .filter(
      (l) => !l.startsWith('/') && !l.split('/').some((part) => part === '..' || part === '.' || part === ''),
    );
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
    if (last && !st.isFile()) throw new WriteRefused(`cannot write ${at}: it is not a file`);
    if (!last && !st.isDirectory()) throw new WriteRefused(`cannot write into ${at}: it is not a folder`);
  }
}
