// A scheduled report by e-mail (nodemailer over SMTP, docs/reports.md "Scheduled reports and
// delivery"): one message per address (recipient, cc or bcc) on an envelope of that address alone,
// so what the server says of it is its own state, recorded (and never repeated) on its own.
// The password comes only from the environment variable `smtp.passwordEnv` names, is registered
// with the log scrubber, and is never written anywhere. Every wait on the server is bounded, a
// whole send too. The login and the reports cross the network only inside TLS (port 465 with
// `secure`, or STARTTLS, required), unless `allowInsecure: true` says otherwise on purpose.
import type { ReportMailConfig, SmtpConfig } from '../../config/schema.js';
import { registerSecret } from '../../log.js';
import { composeMail, type MailWords } from './compose.js';

/**
 * Reaching the server, its greeting, any silence mid-conversation, and a whole send (a server that
 * answers a byte a minute keeps the socket busy but not the send): never a hang.
 */
export const SMTP_TIMEOUTS = {
  connectionTimeout: 15_000,
  greetingTimeout: 15_000,
  socketTimeout: 60_000,
  sendTimeout: 120_000,
};
export type MailTimeouts = typeof SMTP_TIMEOUTS;
/** Our code for a send over SMTP_TIMEOUTS.sendTimeout. */
const SEND_TIMEOUT = 'ESENDTIMEOUT';

/**
 * Failures of the server or the account, not of one message: the rest of a delivery would meet the
 * same (./session.ts stops at the first). nodemailer's codes, and ours for a send over its bound.
 */
const ACCOUNT_FAILURES = new Set([
  'EAUTH',
  'ENOAUTH',
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ETLS',
  SEND_TIMEOUT,
]);

/** True when `err` says the server or the login failed, not this one message. */
export function accountFailure(err: unknown): boolean {
  if (err instanceof MailConfigError) return true;
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && ACCOUNT_FAILURES.has(code);
}

/** Codes that mean the server (or we) refused before it could have taken the mail. */
const REFUSED_BEFORE = new Set(['EAUTH', 'ENOAUTH', 'ETLS', 'EDNS', 'EENVELOPE', 'EREQUIRETLS', 'ECONFIG']);
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * True when `err` proves the mail was not taken: the server answered with a refusal, the login or
 * TLS failed, or no conversation began. False for a connection that dropped or fell silent midway,
 * or a send over its bound: the server may have the whole mail (../scheduled/send.ts keeps it
 * `sending`, not mailed again on its own).
 */
export function certainlyNotSent(err: unknown): boolean {
  if (err instanceof MailConfigError) return true;
  const e = (err ?? {}) as {
    code?: unknown;
    responseCode?: unknown;
    timeoutType?: unknown;
    originalCode?: unknown;
  };
  if (typeof e.responseCode === 'number') return true;
  if (typeof e.code === 'string' && REFUSED_BEFORE.has(e.code)) return true;
  if (e.timeoutType === 'CONNECT_TIMEOUT' || e.timeoutType === 'GREETING_TIMEOUT') return true;
  return typeof e.originalCode === 'string' && NEVER_CONNECTED.has(e.originalCode);
}

/** The reason of a mail failure in our words where nodemailer's would not tell what to do. */
export function mailFailureReason(smtp: SmtpConfig, err: unknown): string {
  const e = err as
    | { code?: string; message?: string; command?: string; response?: string; rejected?: string[] }
    | undefined;
  const message = e?.message ?? String(err);
  // The server's own answer to this address, not nodemailer's "all recipients were rejected".
  if (e?.code === 'EENVELOPE' && e.command === 'RCPT TO' && e.response)
    return `the server refused ${e.rejected?.[0] ?? 'the address'}: ${e.response}`;
  if (e?.code === 'ETLS' && !smtp.secure)
    return `${smtp.host}:${smtp.port} offers no STARTTLS, so the login and the report would cross the network in cleartext: refused (use port 465 with secure: true, or a server with STARTTLS; smtp.allowInsecure: true only for a trusted local relay)`;
  if (e?.code === 'EAUTH')
    return `the SMTP login was refused: ${message} (check reports.smtp.user and the password in the variable reports.smtp.passwordEnv names)`;
  if (e?.code === 'ECONNECTION' || e?.code === 'ESOCKET' || e?.code === 'EDNS' || e?.code === 'ETIMEDOUT')
    return `${message} (SMTP ${smtp.host}:${smtp.port}: check reports.smtp.host and port, and that the server is up)`;
  return message;
}

/** The SMTP settings cannot be used as they stand (a password variable unset): one line. */
export class MailConfigError extends Error {
  override name = 'MailConfigError';
}

/** The login, with the password read from the environment; none without `user`. */
export function smtpAuth(
  smtp: SmtpConfig,
  env: NodeJS.ProcessEnv = process.env,
): { user: string; pass: string } | undefined {
  if (smtp.user === undefined || smtp.passwordEnv === undefined) return undefined;
  const pass = env[smtp.passwordEnv];
  if (!pass)
    throw new MailConfigError(
      `environment variable ${smtp.passwordEnv} is not set: it holds the password of SMTP user ${smtp.user} (reports.smtp.passwordEnv); set it where the worker and \`visync report send\` run`,
    );
  registerSecret(pass);
  return { user: smtp.user, pass };
}

export interface ReportMail {
  /** The To header: the recipient (a cc or bcc copy shows the first recipient, as its mail does). */
  to: string;
  /** The one address this message is delivered to (the envelope's RCPT TO): `to`, or a cc or bcc. */
  deliverTo: string;
  messageId: string;
  /** The subject's and body's words (./compose.ts). */
  words: MailWords;
  /** `reports.mail` of the workspace: sender name, reply-to and the Cc header (bcc is never one). */
  addressing: ReportMailConfig;
  attachment: Attachment;
  /** Further files of the report (`reports.attach`), after the first. */
  more?: Attachment[];
}

export interface Attachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface Mailer {
  /** Resolves once the server accepted the message for `deliverTo`; rejects with its reason otherwise. */
  send(mail: ReportMail): Promise<void>;
  /** Connects and, with a user, logs in: what `visync doctor` checks before a first scheduled report. */
  verify(): Promise<void>;
  close(): void;
}

/** One transport, its one connection kept for the mails of a delivery (one login, not one a mail). */
export async function openMailer(
  smtp: SmtpConfig,
  env: NodeJS.ProcessEnv = process.env,
  timeouts: MailTimeouts = SMTP_TIMEOUTS,
): Promise<Mailer> {
  const auth = smtpAuth(smtp, env);
  // Loaded when a report is mailed: nothing else needs nodemailer.
  const { createTransport } = await import('nodemailer');
  const { sendTimeout, ...waits } = timeouts;
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    // STARTTLS or no conversation at all: nodemailer otherwise logs in in cleartext when the server
    // offers no STARTTLS (or a man in the middle strips it from the answer).
    requireTLS: !smtp.secure && !smtp.allowInsecure,
    pool: true,
    maxConnections: 1,
    ...(auth ? { auth } : {}),
    ...waits,
  });
  return {
    async send(m) {
      let timer: NodeJS.Timeout | undefined;
      const over = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // Ends the stuck connection; the breaker (./session.ts) retires this mailer.
          transport.close();
          reject(
            Object.assign(new Error(`the SMTP server did not take the mail within ${sendTimeout / 1000} s`), {
              code: SEND_TIMEOUT,
            }),
          );
        }, sendTimeout);
      });
      // One address on the envelope: a refusal of it rejects the send (nodemailer resolves only
      // when the server took the message for some address of the envelope).
      try {
        await Promise.race([transport.sendMail(reportMessage(m, smtp.from)), over]);
      } finally {
        clearTimeout(timer);
      }
    },
    async verify() {
      await transport.verify();
    },
    close: () => transport.close(),
  };
}

/**
 * The message nodemailer sends: subject, text and HTML parts, the attachment, the sender with its
 * display name, Reply-To, and Cc shown on every recipient's mail. The envelope says who gets this
 * message: the one address `deliverTo`, a recipient or a copy (Bcc is never a header).
 */
export function reportMessage(m: ReportMail, from: string) {
  const { subject, text, html } = composeMail(m.words);
  const a = m.addressing;
  const cc = a.cc ?? [];
  return {
    from: a.fromName ? { name: a.fromName, address: from } : from,
    to: m.to,
    ...(cc.length ? { cc } : {}),
    ...(a.replyTo ? { replyTo: a.replyTo } : {}),
    envelope: { from, to: [m.deliverTo] },
    subject,
    text,
    html,
    messageId: m.messageId,
    attachments: [m.attachment, ...(m.more ?? [])],
  };
}
