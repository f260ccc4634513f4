// Sending an alert (./payloads.ts) to alerts.webhook: best effort, retried with backoff, bounded in
// time, never throwing into the run that triggered it, and passed through the secret scrubber, so a
// key echoed in an upstream error never leaves the process. A job's alerts go out together within
// one deadline (AlertBatch).
import { scrubSecrets } from '../../log.js';
import { errorMessage } from '../../util/errors.js';
import { sleep } from '../../util/time.js';
import type { AlertPayload } from './payloads.js';

export interface SendOptions {
  attempts?: number;
  baseDelayMs?: number;
  /** Per-attempt deadline (default 10 s). */
  timeoutMs?: number;
  /** To open the connection (default 5 s): a host that drops the SYN fails in seconds, not at the OS's minutes. */
  connectTimeoutMs?: number;
  /** From the request sent to the response's headers (default 5 s): a receiver that accepts and never answers. */
  headersTimeoutMs?: number;
  /**
   * Across all attempts and the waits between them (default 20 s): without it, a webhook that
   * never answered cost 4 attempts of 10 s and 7 s of backoff, per alert.
   */
  totalMs?: number;
  /** The caller's own deadline, shared by several alerts (AlertBatch): aborting it ends the send. */
  signal?: AbortSignal;
}

export interface SendResult {
  ok: boolean;
  attempts: number;
  /** Why the last attempt failed (no URL in it: webhook URLs are secrets too). */
  error?: string;
}

export const ALERT_SEND_DEFAULTS = {
  attempts: 4,
  baseDelayMs: 1_000,
  timeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 5_000,
  totalMs: 20_000,
} as const;

/**
 * POSTs one alert. 2xx is done; 4xx other than 429 is final (the receiver refuses the payload or
 * the URL is wrong, asking again changes nothing); 429, 5xx and network errors are retried while
 * the total bound leaves time for another attempt.
 */
export async function sendAlert(
  webhook: string,
  payload: AlertPayload,
  o: SendOptions = {},
): Promise<SendResult> {
  const d = { ...ALERT_SEND_DEFAULTS, ...definedOnly(o) };
  const body = scrubSecrets(JSON.stringify(payload));
  const ends = Date.now() + d.totalMs;
  let error = '';
  let attempt = 0;
  // Loaded on the first alert: a worker without one never pays for undici at start.
  const { Agent, request } = await import('../../api/webhook-request.js');
  while (attempt < d.attempts) {
    const left = ends - Date.now();
    if (left <= 0 || o.signal?.aborted) break;
    attempt++;
    // An agent of its own: undici's connect timeout is the dispatcher's, not the request's.
    const agent = new Agent({ connect: { timeout: Math.min(d.connectTimeoutMs, left) } });
    try {
      const res = await request(webhook, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'visibility-sync' },
        body,
        dispatcher: agent,
        headersTimeout: Math.min(d.headersTimeoutMs, left),
        bodyTimeout: Math.min(d.timeoutMs, left),
        signal: anyOf(AbortSignal.timeout(Math.min(d.timeoutMs, left)), o.signal),
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, attempts: attempt };
      error = `HTTP ${res.statusCode}`;
      if (res.statusCode < 500 && res.statusCode !== 429) return { ok: false, attempts: attempt, error };
    } catch (err) {
      error = errorMessage(err);
    } finally {
      await agent.destroy().catch(() => {});
    }
    const wait = d.baseDelayMs * 2 ** (attempt - 1);
    // No time left for another attempt after the wait: stop now rather than sleep into the bound.
    if (attempt >= d.attempts || Date.now() + wait >= ends) break;
    if (
      !(await sleep(wait, o.signal).then(
        () => true,
        () => false,
      ))
    )
      break;
  }
  if (o.signal?.aborted) error = `${error ? `${error}; ` : ''}${errorMessage(o.signal.reason)}`;
  else if (Date.now() >= ends || attempt < d.attempts)
    error = `${error ? `${error}; ` : ''}gave up after ${d.totalMs} ms`;
  return { ok: false, attempts: attempt, error };
}

function definedOnly(o: SendOptions): Partial<SendOptions> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function anyOf(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  return b ? AbortSignal.any([a, b]) : a;
}

/**
 * The alerts of one job (a report job's made and stale alerts, one per workspace): sent together,
 * at most `concurrency` at once, and all settled within `deadlineMs` of the first (those still
 * waiting or sending then end not delivered), so a webhook that never answers costs the job one
 * deadline, not one bound per workspace one after another.
 */
export class AlertBatch {
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  #deadline: AbortController | undefined;
  readonly #posted = new Set<Promise<SendResult>>();

  constructor(
    private readonly send: SendOptions = {},
    private readonly o: { concurrency?: number; deadlineMs?: number } = {},
  ) {}

  /** Sends the alert within the batch's bounds; never rejects. */
  post(webhook: string, payload: AlertPayload): Promise<SendResult> {
    const p = this.#post(webhook, payload).catch((err: unknown) => ({
      ok: false,
      attempts: 0,
      error: errorMessage(err),
    }));
    this.#posted.add(p);
    void p.finally(() => this.#posted.delete(p));
    return p;
  }

  /** Resolves once every alert posted so far has settled (within the deadline). */
  async settled(): Promise<void> {
    while (this.#posted.size) await Promise.all([...this.#posted]);
  }

  async #post(webhook: string, payload: AlertPayload): Promise<SendResult> {
    const signal = this.#startDeadline();
    if (this.#active >= (this.o.concurrency ?? 4))
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#active++;
    try {
      return await sendAlert(webhook, payload, {
        ...this.send,
        signal: this.send.signal ? AbortSignal.any([signal, this.send.signal]) : signal,
      });
    } finally {
      this.#active--;
      this.#waiting.shift()?.();
    }
  }

  #startDeadline(): AbortSignal {
    if (!this.#deadline) {
      const ms = this.o.deadlineMs ?? 60_000;
      const c = new AbortController();
      const timer = setTimeout(
        () => c.abort(new Error(`the job's alerts were not all delivered within ${ms} ms`)),
        ms,
      );
      // A batch whose alerts all settled leaves nothing behind that keeps the process up.
      timer.unref();
      this.#deadline = c;
    }
    return this.#deadline.signal;
  }
}
