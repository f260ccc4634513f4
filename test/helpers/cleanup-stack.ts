// One stack of what a test opened, closed last-opened first after the test (test/helpers/harness.ts
// drains it): a process spawned into a temporary folder is stopped before the folder is removed.
export type Cleanup = () => Promise<void> | void;

export const cleanups: Cleanup[] = [];

/** Closes `fn` after the test, before anything opened earlier. */
export function onCleanup(fn: Cleanup): void {
  cleanups.push(fn);
}
