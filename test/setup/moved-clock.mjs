// Preloaded into every Node process of a test run by scripts/on-day.mjs (NODE_OPTIONS --import):
// moves the wall clock (Date) by VISYNC_CLOCK_OFFSET_MS, so the code under test, the CLIs it
// spawns and the simulator all believe it is another day. The monotonic clock (performance.now,
// timers) stays real, so timeouts and waits behave; Redis and Chromium keep their own clocks, as
// servers beside the code would. The process sees the file system's clock moved too (file times
// read and set), and performance.timeOrigin. Without the variable this file changes nothing.
import fs from 'node:fs';
import { ServerResponse } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';

const offset = Number(process.env.VISYNC_CLOCK_OFFSET_MS ?? 0);
if (Number.isFinite(offset) && offset !== 0) {
  const Real = Date;
  // A function, not a subclass: `Date()` called without `new` must still return a string; a class
  // that extends Date (new.target) still gets instances of its own.
  function MovedDate(...args) {
    if (!new.target) return new Real(Real.now() + offset).toString();
    return Reflect.construct(Real, args.length === 0 ? [Real.now() + offset] : args, new.target);
  }
  MovedDate.prototype = Real.prototype;
  MovedDate.now = () => Real.now() + offset;
  MovedDate.parse = Real.parse;
  MovedDate.UTC = Real.UTC;
  globalThis.Date = MovedDate;

  // Node's HTTP server writes its `Date` header from the clock it captured at start-up, not from
  // the global: a server in a moved process (the simulator, s3rver) says the moved time too, as the
  // API and S3 would on that day (visync compares its clock with the API's, the AWS SDK with S3's).
  const writeHead = ServerResponse.prototype.writeHead;
  ServerResponse.prototype.writeHead = function movedWriteHead(...args) {
    if (this.sendDate && !this.headersSent && !this.hasHeader('date'))
      this.setHeader('date', new MovedDate().toUTCString());
    return writeHead.apply(this, args);
  };

  // performance.timeOrigin + performance.now() is a wall-clock time too (the simulator's log).
  const origin = performance.timeOrigin + offset;
  Object.defineProperty(performance, 'timeOrigin', { get: () => origin, configurable: true });

  // A file written now carries the machine's real time; the process must see it as written on the
  // moved day, and a time it sets (utimes) is stored as the real time it stands for.
  const movedStats = (st) => {
    if (st && typeof st.mtimeMs === 'number')
      for (const k of ['atimeMs', 'mtimeMs', 'ctimeMs', 'birthtimeMs']) st[k] += offset;
    return st;
  };
  const realTime = (t) =>
    (t instanceof Real ? t.getTime() : typeof t === 'number' ? t * 1000 : Real.parse(t)) - offset;
  const asSeconds = (t) => realTime(t) / 1000;
  for (const name of ['stat', 'lstat', 'fstat']) {
    const sync = fs[`${name}Sync`];
    fs[`${name}Sync`] = (...a) => movedStats(sync(...a));
    const cb = fs[name];
    fs[name] = (...a) => {
      const done = a.pop();
      return cb(...a, (err, st) => done(err, err ? st : movedStats(st)));
    };
    if (fs.promises[name]) {
      const p = fs.promises[name];
      fs.promises[name] = async (...a) => movedStats(await p(...a));
    }
  }
  for (const name of ['utimes', 'lutimes', 'futimes']) {
    const sync = fs[`${name}Sync`];
    fs[`${name}Sync`] = (target, atime, mtime) => sync(target, asSeconds(atime), asSeconds(mtime));
    const cb = fs[name];
    fs[name] = (target, atime, mtime, done) => cb(target, asSeconds(atime), asSeconds(mtime), done);
    if (fs.promises[name]) {
      const p = fs.promises[name];
      fs.promises[name] = (target, atime, mtime) => p(target, asSeconds(atime), asSeconds(mtime));
    }
  }
  // `import { statSync } from 'node:fs'` binds the module's exports: give them the wrappers too.
  syncBuiltinESMExports();
}
