// One stack of what a test opened, closed last-opened first after the test: a process spawned into
// a temporary folder is stopped before the folder is removed. Every helper that opens something
// (test/helpers/harness.ts, cli-process.ts, worker-process.ts) puts its closing here.
import { afterEach } from 'vitest';

export type Cleanup = () => Promise<void> | void;

export const cleanups: Cleanup[] = [];

/** Closes `fn` after the test, before anything opened earlier. */
export function onCleanup(fn: Cleanup): void {
  cleanups.push(fn);
}

/** Closes what the test opened (also registered per file by test/setup/cleanups.ts). */
export async function runCleanups(): Promise<void> {
  while (cleanups.length) await cleanups.pop()?.();
}
// Registered when this module is first imported; a tier that shares modules between files
// (isolate: false) registers it again per file through its setup file.
afterEach(runCleanups);
