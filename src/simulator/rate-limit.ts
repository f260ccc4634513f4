// Per-account sliding-window limiter, the way the upstream counts: every accepted request of an
// account, whichever key sent it, stays in the window for `windowMs` after it arrived.

export interface WindowLimit {
  requests: number;
  windowMs: number;
}

export type Admission = { ok: true } | { ok: false; retryAfterMs: number };

/** Accepted arrival times of one account, oldest first; `head` skips expired ones without shifting. */
class ArrivalLog {
  private times: number[] = [];
  private head = 0;

  prune(now: number, windowMs: number): void {
    while (this.head < this.times.length && (this.times[this.head] as number) <= now - windowMs) this.head++;
    // Compact now and then so a long-running simulator does not keep every arrival forever.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  get size(): number {
    return this.times.length - this.head;
  }

  get oldest(): number | undefined {
    return this.times[this.head];
  }

  push(t: number): void {
    this.times.push(t);
  }
}

export class SlidingWindowLimiter {
  private readonly logs = new Map<string, ArrivalLog>();

  /** `now` is a monotonic millisecond clock, so wall-clock jumps cannot open or close the window. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  private logOf(account: string): ArrivalLog {
    let log = this.logs.get(account);
    if (!log) {
      log = new ArrivalLog();
      this.logs.set(account, log);
    }
    return log;
  }

  /** Accepts and records the request, or says how long until the oldest accepted one leaves. */
  admit(account: string, limit: WindowLimit, at = this.now()): Admission {
    const log = this.logOf(account);
    log.prune(at, limit.windowMs);
    if (log.size < limit.requests) {
      log.push(at);
      return { ok: true };
    }
    const oldest = log.oldest ?? at;
    return { ok: false, retryAfterMs: Math.max(0, oldest + limit.windowMs - at) };
  }

  /** Accepted requests of `account` still inside the window. */
  inWindow(account: string, windowMs: number, at = this.now()): number {
    const log = this.logOf(account);
    log.prune(at, windowMs);
    return log.size;
  }
}
