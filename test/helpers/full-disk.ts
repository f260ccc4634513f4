// A real full disk for tests: a small tmpfs (mounted as root, unmounted after the test) and a way
// to fill it to the last byte, so a write fails with ENOSPC exactly when a test says.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const unmounts: (() => void)[] = [];
/** Closes what this helper opened for the test (also registered per file by test/setup/cleanups.ts). */
export function unmountSmallDisks(): void {
  while (unmounts.length) unmounts.pop()?.();
}
afterEach(unmountSmallDisks);

/** A tmpfs of `mb` megabytes (a real disk that fills up), unmounted after the test. */
export function smallDisk(mb: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'visync-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  unmounts.push(() => {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Fills the disk under `dir` to the last block. */
export function fill(dir: string): void {
  const chunk = Buffer.alloc(64 * 1024, 1);
  const path = join(dir, 'filler');
  try {
    for (;;) writeFileSync(path, chunk, { flag: 'a' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  }
  // The last partial chunk: a byte at a time, until not even one fits.
  try {
    for (;;) writeFileSync(path, 'x', { flag: 'a' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  }
}

let mountable: boolean | undefined;
/** Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN); the disk-full tests need it. */
export function canMount(): boolean {
  if (mountable === undefined) {
    try {
      smallDisk(1);
      mountable = true;
    } catch {
      mountable = false;
    }
  }
  return mountable;
}
