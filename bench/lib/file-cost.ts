// What the file system of the sink's folder costs at the moment: the CPU (user + system) of
// writing, renaming into place and reading back a 3 KB file, as the fs sink does for every response
// it lands. A worker lands about 1.3 files and reads back 1.1 per request, so the scenario notes
// give it beside the CPU figure.
//
// The files are left in place: the caller removes them when the whole bench is over. Deleting
// files makes the next ones created nearby dearer for minutes on an ext4 without a journal (the
// benchmark machine's disk): to allocate an inode the kernel skips, one by one, every inode of the
// block group freed in the last minutes (the kernel's `recently_deleted`), so after 3,000 files
// deleted a create cost 130-245 us of CPU for about two minutes, after 20,000 up to 1,000 us,
// instead of 20-40 (docs/scaling.md, "The disk under the fs sink").
import { closeSync, mkdtempSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Microseconds of this process's CPU per call of `op` on the files 0..files-1 of a new folder of `parent`. */
function cpuUsPerFile(
  parent: string,
  name: string,
  files: number,
  op: (dir: string, i: number) => void,
): number {
  const dir = mkdtempSync(join(parent, `${name}-`));
  const before = process.cpuUsage();
  for (let i = 0; i < files; i++) op(dir, i);
  const used = process.cpuUsage(before);
  return Math.round((used.user + used.system) / files);
}

const BODY = Buffer.alloc(3000, 'x');

/** Microseconds of this process's CPU per file written, renamed and read back in a new folder of `parent`. */
export function fileCostUs(parent: string, files = 1000): number {
  return cpuUsPerFile(parent, 'file-cost', files, (dir, i) => {
    writeFileSync(join(dir, `@tmp-${i}`), BODY);
    renameSync(join(dir, `@tmp-${i}`), join(dir, `f${i}.json`));
    readFileSync(join(dir, `f${i}.json`));
  });
}

/** Microseconds of this process's CPU per empty file created in a new folder of `parent`. */
function createCostUs(parent: string, files: number): number {
  return cpuUsPerFile(parent, 'create-cost', files, (dir, i) => closeSync(openSync(join(dir, `f${i}`), 'w')));
}

export interface Settling {
  waitedMs: number;
  /** CPU per file created when first measured and when the wait ended. */
  firstUs: number;
  lastUs: number;
}

/**
 * Waits, at most `maxMs`, until a file created in `parent` costs less than `settledUs` of CPU (a
 * local disk: 20-40 us; tmpfs: under 10). After thousands of files were deleted nearby (a test
 * suite, an earlier bench) creates cost 130-1,000 us each on the benchmark machine's disk for
 * minutes, then fall back at once: a scenario started in that time would measure the kernel's
 * bookkeeping of someone else's deletes, not the workers. Past `maxMs` the scenario goes on and
 * its notes say what a file still cost.
 */
export async function waitForFileSystem(
  parent: string,
  { settledUs = 100, maxMs = 300_000, everyMs = 15_000, files = 300 } = {},
): Promise<Settling> {
  const firstUs = createCostUs(parent, files);
  let lastUs = firstUs;
  let waitedMs = 0;
  while (lastUs >= settledUs && waitedMs < maxMs) {
    await new Promise((r) => setTimeout(r, everyMs));
    waitedMs += everyMs;
    lastUs = createCostUs(parent, files);
  }
  return { waitedMs, firstUs, lastUs };
}

/** The wait, for the log and the notes ('' when there was none). */
export function describeSettling(s: Settling): string {
  return s.waitedMs > 0
    ? `waited ${Math.round(s.waitedMs / 1000)} s for the data folder's file system to settle ` +
        `(${s.firstUs} -> ${s.lastUs} us of CPU per file created)`
    : '';
}
