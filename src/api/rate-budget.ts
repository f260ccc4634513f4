// One request budget per account. The interface is what the client needs; MemoryRateBudget serves
// one process (run --once), and the jobs layer backs the same interface with Redis so every
// worker of an account shares it.
//
// Algorithm: a sliding log of slots. A slot is taken when a request is about to leave and stays
// counted until `window` after the request was answered (settle), not after it was sent: the
// server counts a request when it arrives, which is somewhere between send and answer, so timing
// the slot from the answer is never early, whatever the latency. Hence never more than
// `requests` in any rolling window as the server sees it.

import { VisyncError } from '../util/errors.js';
import { sleep } from '../util/time.js';
import { cappedPauseMs, DEFAULT_MAX_PAUSE_MS } from './pause-cap.js';

export interface RateLimit {
  requests: number;
  windowMs: number;
}

export type TakeResult = { ok: true; slot: string } | { ok: false; retryInMs: number };

export interface RateBudget {
  /** Takes one slot of `account`'s budget, or says how long until one may be free. */
  tryTake(account: string, limit: RateLimit): Promise<TakeResult>;
  /** The slot's request was answered (or failed): it now frees `window` from now. */
  settle(account: string, slot: string, limit: RateLimit): Promise<void>;
  /**
   * Account-wide pause (from Retry-After): no slot before `untilMs`, or before the budget's cap
   * (extract.maxPauseSeconds, src/api/pause-cap.ts) from now, whichever comes first. Never shortens a pause.
   */
  pause(account: string, untilMs: number): Promise<void>;
  /**
   * The upstream reports `requests` of the account in its current window (GET /me): those beyond
   * what this budget counts were made by someone else (another process, another tool) and count
   * as spent now. Only a budget that sees one process needs it; a shared one already counts them.
   */
  spentElsewhere?(account: string, requests: number, limit: RateLimit): Promise<void>;
}

/** What every budget is built with. */
export interface BudgetOptions {
  /** The longest pause (extract.maxPauseSeconds in ms); default one hour. */
  maxPauseMs?: number | undefined;
}

export interface ReserveOptions {
  /**
   * The asking job has had slots of this window already and wants more: refused, it is told when
   * the next slot frees, not queued behind the calls promised to refused jobs (its own among
   * them, when it was one), and it promises nothing more.
   */
  underWay?: boolean;
  /**
   * Slots of the same account to settle first, in the same step (Redis: the same script, one round
   * trip instead of two): `used` count from now, `unused` are given back, as settleMany.
   */
  settle?: { used: string[]; unused: string[] };
}

export type ReserveResult = { slots: string[]; retryInMs: 0 } | { slots: []; retryInMs: number };

/** A budget that grants several slots in one step and settles them in one step (Redis: one script each). */
export interface ReservableBudget extends RateBudget {
  /** Up to `wanted` slots, as many as the window allows now (none: how long until one may be free).
   *  Until settled they count as answered `holdMs` from now. */
  reserve(
    account: string,
    limit: RateLimit,
    wanted: number,
    holdMs: number,
    opts?: ReserveOptions,
  ): Promise<ReserveResult>;
  /** `used` slots count from now; `unused` ones are given back. */
  settleMany(account: string, used: string[], unused: string[], limit: RateLimit): Promise<void>;
  /** Ms the account is known here to be paused for (set by this process or announced by another). */
  pausedFor(account: string): number;
}

/**
 * One job's calls of one account drawn from a reservation: the first take reserves every call the
 * job knows it will make (as many as the window allows), later takes use them with no round trip,
 * and flush() settles them all at once when the job is done (or steps aside). Two Redis scripts
 * per job instead of two per request.
 *
 * What it trades: a slot counts from the flush, not from its own answer (never earlier than the
 * server counts it, so never over the limit; at most the job's duration later). A reserved slot is
 * used within `holdMs` of its reservation, else the reservation is flushed and renewed, so the
 * hold (how long slots of a holder that died stay counted) bounds the risk. Every take checks the
 * pauses the budget knows of without a round trip (its own, and those other processes announce),
 * so a Retry-After stops the account's other jobs at once, reservation or not.
 */
export class Reservation implements RateBudget {
  #pool: string[] = [];
  #used: string[] = [];
  /** Used slots whose requests were answered, not settled yet (see batch). */
  #answered: string[] = [];
  /** A reservation was granted: later ones ask for at most a batch. */
  #reserved = false;
  #unused: string[] = [];
  #expires = 0;
  #pausedUntil = 0;
  #account = '';
  #limit: RateLimit | undefined;
  /** The reservation being made, shared by the calls that wait for it. */
  #opening: Promise<number> | undefined;

  constructor(
    private readonly inner: ReservableBudget,
    /** Calls the job still expects to make; more are reserved one reservation at a time. */
    private remaining: number,
    private readonly holdMs: number,
    /**
     * Work the window in batches of this many: answered slots are settled a batch at a time (one
     * script each) rather than all at the flush, and once the first reservation is used up each
     * further one asks for at most a batch. A long job's early calls then free for the account's
     * next window as they would one by one, and a job that runs into the window's end takes its
     * slots as they free (a wait for a batch is short) instead of waiting until all of its calls
     * fit. Default: one reservation for every call, settled at the flush.
     */
    private readonly batch = Number.POSITIVE_INFINITY,
  ) {}

  async tryTake(account: string, limit: RateLimit): Promise<TakeResult> {
    for (;;) {
      const wait = await this.open(account, limit);
      if (wait > 0) return { ok: false, retryInMs: wait };
      // A call of the same job may have taken the last slot while this one waited: reserve again.
      const slot = this.#pool.pop();
      if (slot === undefined) continue;
      // Counted as used from the take: flush() comes after its answer.
      this.#used.push(slot);
      this.remaining--;
      return { ok: true, slot };
    }
  }

  /**
   * Makes sure slots are in hand, reserving when none are: 0 when there are, else how long until
   * one may be free. A job calls it before its first call, to step aside rather than wait. Calls
   * of one job made at once share one reservation script.
   */
  async open(account: string, limit: RateLimit): Promise<number> {
    const now = Date.now();
    const pausedFor = Math.max(this.#pausedUntil - now, this.inner.pausedFor(account));
    if (pausedFor > 0) return pausedFor;
    if (this.#pool.length && now < this.#expires && account === this.#account) return 0;
    this.#opening ??= this.#reserve(account, limit, now).finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async #reserve(account: string, limit: RateLimit, now: number): Promise<number> {
    const wanted = this.#reserved ? Math.min(this.remaining, this.batch) : this.remaining;
    // Only what is answered: a call of this job may have taken its slot and not be answered yet
    // (its request not even sent), and settled now it would count from before the server counts it.
    const used = this.#answered.splice(0);
    const opts: ReserveOptions = { underWay: this.#reserved };
    // Settled by the reservation's own step when both are of one account (always, in practice).
    if (account === this.#account) opts.settle = { used, unused: this.#giveBack() };
    else await this.#settle(used);
    const r = await this.inner.reserve(account, limit, Math.max(1, wanted), this.holdMs, opts);
    if (!r.slots.length) return r.retryInMs;
    this.#reserved = true;
    this.#pool = r.slots;
    this.#expires = now + this.holdMs;
    this.#account = account;
    this.#limit = limit;
    return 0;
  }

  /** The slot's request was answered: settled with its batch, or at the next reservation or flush. */
  async settle(_account: string, slot: string): Promise<void> {
    const i = this.#used.indexOf(slot);
    if (i < 0) return;
    this.#used.splice(i, 1);
    this.#answered.push(slot);
    if (this.#answered.length >= this.batch && this.#limit)
      await this.inner.settleMany(this.#account, this.#answered.splice(0), [], this.#limit);
  }

  async pause(account: string, untilMs: number): Promise<void> {
    this.#pausedUntil = Math.max(this.#pausedUntil, untilMs);
    // Reserved slots are not used during the pause: given back at the flush.
    this.#unused.push(...this.#pool);
    this.#pool = [];
    await this.inner.pause(account, untilMs);
    // No longer than the inner budget holds it: that one caps every pause (src/api/pause-cap.ts).
    this.#pausedUntil = Math.min(this.#pausedUntil, Date.now() + this.inner.pausedFor(account));
  }

  /**
   * Settles what was used and gives back the rest. Call when the job's calls are over (it ends or
   * steps aside): a slot taken and not yet answered would count from before its request arrived.
   */
  async flush(): Promise<void> {
    await this.#settle([...this.#answered.splice(0), ...this.#used.splice(0)]);
  }

  /** Settles `used` and gives back every slot held and not taken. */
  async #settle(used: string[]): Promise<void> {
    const unused = this.#giveBack();
    if (this.#limit && (used.length || unused.length))
      await this.inner.settleMany(this.#account, used, unused, this.#limit);
  }

  /** Every slot held and not taken, no longer held. */
  #giveBack(): string[] {
    return [...this.#unused.splice(0), ...this.#pool.splice(0)];
  }
}

/** Raised when a slot would take longer than the caller is willing to wait (see acquireSlot). */
const budgetWaitReason = (retryInMs: number) => `no request budget for ${Math.ceil(retryInMs / 1000)} s`;

export class BudgetWaitTooLong extends VisyncError {
  get code() {
    return 'budget_wait_too_long' as const;
  }

  constructor(
    readonly account: string,
    readonly retryInMs: number,
    /** The wait would end after the caller's deadline: waiting elsewhere cannot help either. */
    readonly pastDeadline = false,
  ) {
    super(`${account}: ${budgetWaitReason(retryInMs)}`);
    this.name = 'BudgetWaitTooLong';
  }

  /** The message without the account, for a place that names it already. */
  get reason(): string {
    return budgetWaitReason(this.retryInMs);
  }
}

export interface AcquireOptions {
  signal?: AbortSignal;
  /** Give up (BudgetWaitTooLong) instead of sleeping longer than this in one go. */
  maxWaitMs?: number;
  /** Epoch ms: give up (BudgetWaitTooLong, pastDeadline) when no slot can be had before it. */
  deadlineAt?: number;
}

/** Waits for a slot. Returns the slot and the time spent waiting. */
export async function acquireSlot(
  budget: RateBudget,
  account: string,
  limit: RateLimit,
  options: AcquireOptions = {},
): Promise<{ slot: string; waitedMs: number }> {
  const started = Date.now();
  for (;;) {
    options.signal?.throwIfAborted();
    const r = await budget.tryTake(account, limit);
    if (r.ok) return { slot: r.slot, waitedMs: Date.now() - started };
    if (options.deadlineAt !== undefined && Date.now() + r.retryInMs > options.deadlineAt) {
      throw new BudgetWaitTooLong(account, r.retryInMs, true);
    }
    if (options.maxWaitMs !== undefined && r.retryInMs > options.maxWaitMs) {
      throw new BudgetWaitTooLong(account, r.retryInMs);
    }
    // Small floor so that waiters woken together do not spin on a busy budget.
    await sleep(Math.max(r.retryInMs, 5), options.signal);
  }
}

interface AccountState {
  /** Slot id -> time it counts from (send time until settled, then answer time). */
  slots: Map<string, number>;
  pausedUntil: number;
}

export class MemoryRateBudget implements RateBudget {
  readonly #accounts = new Map<string, AccountState>();
  readonly #maxPauseMs: number;
  #seq = 0;

  constructor(opts: BudgetOptions = {}) {
    this.#maxPauseMs = opts.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
  }

  #state(account: string): AccountState {
    let s = this.#accounts.get(account);
    if (!s) {
      s = { slots: new Map(), pausedUntil: 0 };
      this.#accounts.set(account, s);
    }
    return s;
  }

  async tryTake(account: string, limit: RateLimit): Promise<TakeResult> {
    const now = Date.now();
    const s = this.#state(account);
    if (s.pausedUntil > now) return { ok: false, retryInMs: s.pausedUntil - now };
    const oldest = this.#inWindow(s, now, limit);
    if (s.slots.size < limit.requests) {
      const slot = String(++this.#seq);
      s.slots.set(slot, now);
      return { ok: true, slot };
    }
    return { ok: false, retryInMs: oldest + limit.windowMs - now + 1 };
  }

  async settle(account: string, slot: string, _limit: RateLimit): Promise<void> {
    const s = this.#state(account);
    if (s.slots.has(slot)) s.slots.set(slot, Date.now());
  }

  /** Drops the slots out of the window; returns when the oldest one left counts from (Infinity: none). */
  #inWindow(s: AccountState, now: number, limit: RateLimit): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const [id, at] of s.slots) {
      if (at <= now - limit.windowMs) s.slots.delete(id);
      else oldest = Math.min(oldest, at);
    }
    return oldest;
  }

  async pause(account: string, untilMs: number): Promise<void> {
    const s = this.#state(account);
    const now = Date.now();
    s.pausedUntil = Math.max(s.pausedUntil, now + cappedPauseMs(untilMs - now, this.#maxPauseMs));
  }

  /**
   * Slots for the requests others made in the window, counted from now: the server counted them
   * earlier, so they free here no sooner than there.
   */
  async spentElsewhere(account: string, requests: number, limit: RateLimit): Promise<void> {
    const s = this.#state(account);
    const now = Date.now();
    this.#inWindow(s, now, limit);
    for (let n = s.slots.size; n < Math.min(requests, limit.requests); n++)
      s.slots.set(String(++this.#seq), now);
  }
}
