// The one way a test waits for something to happen: it polls a condition (the ledger, a queue,
// the output of a process, a budget's own answer) until it holds, instead of sleeping a fixed time
// and hoping. The deadline is on the monotonic clock, so tests that shift Date.now() can use it.

export interface WaitForOptions {
  /** What is awaited, for the timeout's message (a function: read when it times out, e.g. the last state). */
  what: string | (() => string);
  /** Give up (throw) after this long; default 20 s. */
  timeoutMs?: number;
  /** Between two checks; default 50 ms. */
  intervalMs?: number;
}

/**
 * Resolves with the first truthy value `check` returns. A check that throws fails the wait at
 * once (a process that exited early), unlike one that is merely not yet true.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  { what, timeoutMs = 20_000, intervalMs = 50 }: WaitForOptions,
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
