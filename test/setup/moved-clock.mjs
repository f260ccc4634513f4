// Preloaded into every Node process of a test run by scripts/on-day.mjs (NODE_OPTIONS --import):
// moves the wall clock (Date) by VISYNC_CLOCK_OFFSET_MS, so the code under test, the CLIs it
// spawns and the simulator all believe it is another day. The monotonic clock (performance.now,
// timers) stays real, so timeouts and waits behave; Redis and Chromium keep their own clocks, as
// servers beside the code would. Without the variable this file changes nothing.
const offset = Number(process.env.VISYNC_CLOCK_OFFSET_MS ?? 0);
if (Number.isFinite(offset) && offset !== 0) {
  const Real = Date;
  // A function, not a subclass: `Date()` called without `new` must still return a string.
  function MovedDate(...args) {
    if (!new.target) return new Real(Real.now() + offset).toString();
    return args.length === 0 ? new Real(Real.now() + offset) : new Real(...args);
  }
  MovedDate.prototype = Real.prototype;
  MovedDate.now = () => Real.now() + offset;
  MovedDate.parse = Real.parse;
  MovedDate.UTC = Real.UTC;
  globalThis.Date = MovedDate;
}
