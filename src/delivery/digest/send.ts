// Sends an account's weekly digest (src/delivery/digest/weekly.ts) through the alerts webhook, once per
// account and ISO week: the nightly `report` job (src/run/queued/report.ts) calls this after each
// nightly run, and the first run dated on or after the digest weekday sends the week before. A
// marker object in the store records the delivery (like the run alert's events-alert.json), and a
// Redis claim keeps two workers, or a retried job beside a running one, from both sending.
import type { Logger } from 'pino';
import { type AccountConfig, type Config, WEEKDAYS } from '../../config/schema.js';
import { readEvents } from '../../events/read.js';
import { digestSettings } from '../../events/rules.js';
import { isoWeekOf, lastWeekday, type Period, previousPeriod } from '../../history/period.js';
import { digestMarkerKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { errorMessage } from '../../util/errors.js';
import type { Claims } from '../claims/claims.js';
import { type SendOptions, sendAlert } from '../webhooks/send.js';
import { displayNames } from './display-names.js';
import { digestIsEmpty, digestPayload, weeklyDigest } from './weekly.js';

/** Longer than a send's bounded retries (src/delivery/webhooks/send.ts); a crashed sender's claim lapses by the next night. */
const CLAIM_SECONDS = 15 * 60;

export type DigestState = 'sent' | 'empty' | 'already' | 'claimed' | 'failed';

export interface DigestOutcome {
  week: string;
  state: DigestState;
}

export interface SendDigestOptions {
  config: Pick<Config, 'alerts' | 'watch' | 'reports'>;
  account: AccountConfig;
  store: ObjectStore;
  /** The nightly run's date (`YYYY-MM-DD`): the only clock. */
  runDate: string;
  claims?: Claims | undefined;
  logger: Logger;
  send?: SendOptions;
}

/**
 * The ISO week a digest on `day` covers after a run of `runDate`: the week before the newest such day
 * (the due rule of a weekly report schedule).
 */
export function digestWeek(day: string, runDate: string): Period {
  const weekday = (WEEKDAYS as readonly string[]).indexOf(day);
  return previousPeriod(isoWeekOf(lastWeekday(runDate, weekday)));
}

/** Sends the due week's digest unless sent; undefined when the account has none. Never throws. */
export async function sendWeeklyDigest(o: SendDigestOptions): Promise<DigestOutcome | undefined> {
  const settings = digestSettings(o.config.watch, o.account.watch);
  const webhook = o.config.alerts?.webhook;
  if (!settings || !webhook) return undefined;
  const week = digestWeek(settings.day, o.runDate);
  const fields = { account: o.account.name, week: week.label };
  const marker = digestMarkerKey(o.account.name, week.label);
  const claim = `digest:${o.account.name}:${week.label}`;
  const done = (state: DigestState): DigestOutcome => ({ week: week.label, state });
  let claimed = false;
  try {
    if (await o.store.get(marker)) return done('already');
    if (o.claims && !(await o.claims.take(claim, CLAIM_SECONDS))) return done('claimed');
    claimed = true;
    // Another worker may have finished between the first look and the claim.
    if (await o.store.get(marker)) return done('already');
    const digest = weeklyDigest(
      o.config.watch,
      o.account,
      week,
      await readEvents(o.store, o.account.name, { since: week.from }),
      settings.top,
    );
    const record = { week: week.label, run_date: o.runDate, events: digest.events };
    if (digestIsEmpty(digest)) {
      await o.store.put(marker, `${JSON.stringify({ ...record, sent: false })}\n`, {
        contentType: 'application/json',
      });
      return done('empty');
    }
    const naming = await displayNames(o.config, o.account, o.store, [
      ...digest.workspaces.map((w) => w.brand_id),
    ]);
    const res = await sendAlert(webhook, digestPayload(digest, naming), o.send);
    if (!res.ok) {
      o.logger.warn({ ...fields, attempts: res.attempts, err: res.error }, 'weekly digest not delivered');
      await o.claims?.release(claim);
      return done('failed');
    }
    // Sent: the claim stays until it lapses, so a marker that fails to write cannot resend at once.
    claimed = false;
    await o.store.put(marker, `${JSON.stringify({ ...record, sent: true })}\n`, {
      contentType: 'application/json',
    });
    o.logger.info({ ...fields, events: digest.events }, 'weekly digest sent');
    return done('sent');
  } catch (err) {
    o.logger.warn({ ...fields, err: errorMessage(err) }, 'weekly digest not delivered');
    if (claimed) await o.claims?.release(claim).catch(() => undefined);
    return done('failed');
  }
}
