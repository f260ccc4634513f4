// Local temporary folders (the curate spool, a load batch's upload files, a sync_runs upload):
// named `<prefix><host>-<pid>-<random>` so that the folders of a process killed before it could
// remove them (SIGKILL, the OOM killer) are found and removed at the next start, while a live
// process's folder is never touched. docs/faults.md.
import { mkdtempSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownerGone, ownerMark } from './process-owner.js';

export type TempDirPrefix = 'visync-spool-' | 'visync-batch-' | 'visync-sync-runs-';
const PREFIXES: readonly TempDirPrefix[] = ['visync-spool-', 'visync-batch-', 'visync-sync-runs-'];

/**
 * Folders named before they carried their owner: removed once untouched this long (no run keeps
 * its spool that long without writing to it, and a newer process never makes one).
 */
const UNMARKED_STALE_MS = 24 * 3_600_000;

/** A new folder of `parent` (default the system's temporary folder) owned by this process. */
export function makeTempDirSync(prefix: TempDirPrefix, parent = tmpdir()): string {
  return mkdtempSync(join(parent, `${prefix}${ownerMark()}-`));
}

/** makeTempDirSync, without blocking; the first in a process sweeps `parent` first. */
export async function makeTempDir(prefix: TempDirPrefix, parent = tmpdir()): Promise<string> {
  await sweepStaleTempDirsOnce(parent);
  return mkdtemp(join(parent, `${prefix}${ownerMark()}-`));
}

const swept = new Map<string, Promise<string[]>>();

/**
 * sweepStaleTempDirs, once per process and folder: at the start of `visync worker`, and before a
 * process makes its first temporary folder (the spool of `run --once` or `replay`).
 */
export function sweepStaleTempDirsOnce(parent = tmpdir()): Promise<string[]> {
  let sweep = swept.get(parent);
  if (!sweep) {
    sweep = sweepStaleTempDirs(parent);
    swept.set(parent, sweep);
  }
  return sweep;
}

/**
 * Removes the temporary folders of `parent` whose owner is a process of this host that is gone,
 * and unmarked ones (older versions) untouched for a day. Returns the names removed. Never throws:
 * a folder it cannot read or remove is left for the next start.
 */
export async function sweepStaleTempDirs(parent = tmpdir(), now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const prefix = PREFIXES.find((p) => name.startsWith(p));
    if (!prefix || !(await stale(join(parent, name), name.slice(prefix.length), now))) continue;
    try {
      await rm(join(parent, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Left for the next start.
    }
  }
  return removed;
}

async function stale(path: string, rest: string, now: number): Promise<boolean> {
  if (/^[0-9a-f]{6}-\d+-/.test(rest)) return ownerGone(rest);
  try {
    const s = await stat(path);
    return s.isDirectory() && now - s.mtimeMs > UNMARKED_STALE_MS;
  } catch {
    return false;
  }
}
