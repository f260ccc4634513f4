// The types the steps of a scheduled delivery share (./deliver.ts, ./make.ts, ./send.ts,
// ./steps.ts, ./hand-made.ts): what a delivery is given, the due report of a workspace, and what
// it came to. Their own module, so the steps import these and not each other.
import type { Logger } from 'pino';
import type { AccountConfig, Config } from '../../config/schema.js';
import type { Period } from '../../history/period.js';
import type { ReportSettings } from '../../report/settings.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import type { Claims } from '../claims/claims.js';
import type { MailSession } from '../mail/session.js';
import type { MailTimeouts } from '../mail/smtp.js';
import type { AlertBatch, SendOptions } from '../webhooks/send.js';
import type { DeliveryRecord, DeliveryState, ReviewMark, VersionSent } from './records.js';

export interface DeliveryOptions {
  config: Config;
  account: AccountConfig;
  store: ObjectStore;
  logger: Logger;
  claims?: Claims;
  /** Called with each workspace's state after it was decided (the worker keeps an index for `status`). */
  onState?: (brandId: string, period: string, state: DeliveryState) => Promise<void>;
  /**
   * Called after each delivery with the to-date report a workspace has out for the period after its
   * due one (sent by hand while that period runs), or undefined (the worker keeps it for `status`).
   */
  onToDate?: (brandId: string, out: { period: string; through: string } | undefined) => Promise<void>;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
  /** Webhook delivery bounds (tests use short ones). */
  alertSend?: SendOptions;
  /** SMTP bounds (src/delivery/mail/smtp.ts; tests use short ones). */
  mailTimeouts?: MailTimeouts;
  /** The SMTP connections and breaker of this delivery, shared by several calls (`report send`'s accounts). */
  mail?: MailSession;
  /** `visync report send --resend-unconfirmed`: mail again a recipient whose send was never confirmed. */
  resendUnconfirmed?: boolean;
  /** How long a job waits for another writing the same whole book (src/delivery/scheduled/book.ts; tests use short ones). */
  bookWaitMs?: number;
  /** The job's alerts, sent together within one deadline (made by deliverScheduled when absent). */
  alertBatch?: AlertBatch;
}

/** A workspace's report of its due period, with the record of it so far. */
export interface Due {
  brandId: string;
  period: Period;
  settings: ReportSettings;
  record: DeliveryRecord | undefined;
}

/**
 * What one address's send came to: `sent`, `already sent`, `claimed` (another process sends it
 * now), `unconfirmed` (a send began and was never recorded as accepted: not mailed again),
 * `failed`, or `marked sent` (`report send --mark-sent`: recorded as delivered, nothing mailed).
 */
export interface RecipientOutcome {
  /** The address: a recipient's, or a copy's (`role`). */
  recipient: string;
  /** A copy of the first recipient's mail (`reports.mail` cc or bcc); absent for a recipient. */
  role?: 'cc' | 'bcc';
  result: 'sent' | 'already sent' | 'claimed' | 'unconfirmed' | 'failed' | 'marked sent';
  reason?: string;
  /**
   * sent, already sent: which version the recipient has (a to-date report or the final one), and
   * `afterToDate`: the newest day of a to-date report the recipient got before the final one ('':
   * a record from before the day was recorded).
   */
  got?: VersionSent & { afterToDate?: string };
}

/** What one workspace's scheduled delivery came to: its state, and each recipient's send. */
export interface DeliveryOutcome {
  brandId: string;
  period: string;
  state: DeliveryState;
  reason?: string;
  location?: string;
  recipients: RecipientOutcome[];
  /** delivery.json could not be written (the sends are recorded on their own). */
  recordFailure?: string;
  /** Held on the review page: not sent (who, when, why). */
  held?: ReviewMark & { reason?: string };
}
