// The stale alert: once per account whose newest successful run is older than
// alerts.staleAfterHours (or that never had one since the watch began). Every worker runs the
// watch; a Redis key per account and last success makes it fire once for the whole fleet, and
// again only after a new success has gone stale in its turn. An account whose run has done its
// calls is not stale while that run waits, as long as expected, for a worker to curate it or for
// its load batch (src/records/run-state.ts).
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../src/config/schema.js';
import { staleAlert } from '../src/delivery/webhooks/payloads.js';
import { type SendOptions, sendAlert } from '../src/delivery/webhooks/send.js';
import { currentPhase } from '../src/records/run-state.js';
import type { RunLedger } from './ledger.js';
import { expectedBatchWaitMs } from './load-batches.js';

export interface StaleWatchOptions {
  config: Config;
  redis: Redis;
  ledger: RunLedger;
  logger: Logger;
  /** How often accounts are checked; default 15 minutes. */
  intervalMs?: number;
  now?: () => Date;
  send?: SendOptions;
}

const MARK_TTL_SECONDS = 90 * 86_400;

/** Checks every account once; resolves with the accounts alerted. */
export async function checkStale(o: StaleWatchOptions): Promise<string[]> {
  const alerts = o.config.alerts;
  if (!alerts?.on.includes('stale')) return [];
  const alerted: string[] = [];
  const now = o.now?.() ?? new Date();
  for (const account of o.config.accounts) {
    const last = await o.ledger.lastSuccess(account.name);
    // A new account is not stale at once: it is measured from when a watch first saw it.
    if (!last && !(await watchedLongerThan(o, account.name, now, alerts.staleAfterHours))) continue;
    const payload = staleAlert({
      account: account.name,
      lastSuccessAt: last?.finished_at,
      now,
      staleAfterHours: alerts.staleAfterHours,
    });
    if (!payload) continue;
    if (await awaitsBatch(o, account.name, now)) continue;
    const mark = `${o.config.redis.prefix}:alerts:stale:${account.name}:${last?.run_id ?? 'never'}`;
    // First worker to see this stale period claims it; the others stay quiet.
    if ((await o.redis.set(mark, now.toISOString(), 'EX', MARK_TTL_SECONDS, 'NX')) !== 'OK') continue;
    const res = await sendAlert(alerts.webhook, payload, o.send);
    if (res.ok) o.logger.warn({ account: account.name }, 'account is stale: alert sent');
    else o.logger.warn({ account: account.name, err: res.error }, 'account is stale: alert not delivered');
    alerted.push(account.name);
  }
  return alerted;
}

/** The account's newest run waits for its curate or its load batch, not longer than expected. */
async function awaitsBatch(o: StaleWatchOptions, account: string, now: Date): Promise<boolean> {
  const [newest] = await o.ledger.recent(account, 1);
  const waiting = newest && currentPhase(newest);
  return !!waiting && now.getTime() - Date.parse(waiting.since) < expectedBatchWaitMs(o.config);
}

async function watchedLongerThan(o: StaleWatchOptions, account: string, now: Date, hours: number) {
  const key = `${o.config.redis.prefix}:alerts:first-seen:${account}`;
  await o.redis.set(key, now.toISOString(), 'NX');
  const since = Date.parse((await o.redis.get(key)) ?? now.toISOString());
  return now.getTime() - since >= hours * 3_600_000;
}

/** Runs checkStale now and every interval until stopped; errors (Redis away) are logged, not thrown. */
export function startStaleWatch(o: StaleWatchOptions): { stop(): void } {
  if (!o.config.alerts?.on.includes('stale')) return { stop() {} };
  const tick = () =>
    checkStale(o).catch((err: Error) => o.logger.debug({ err: err.message }, 'stale check skipped'));
  void tick();
  const timer = setInterval(tick, o.intervalMs ?? 15 * 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
