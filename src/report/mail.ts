// A scheduled report by e-mail (nodemailer over SMTP, docs/reports.md "Scheduled reports and
// delivery"): one message per recipient, so each send is recorded (and never repeated) on its own.
// The password comes only from the environment variable `smtp.passwordEnv` names, is registered
// with the log scrubber, and is never written anywhere. Every wait on the server is bounded.
import type { SmtpConfig } from '../config/schema.js';
import { registerSecret } from '../log.js';
import { escapeText } from './pdf.js';
import type { Period } from './period.js';

/** Reaching the server, its greeting, and any silence mid-conversation: never a hang. */
export const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

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
  to: string;
  messageId: string;
  clientName: string;
  period: Period;
  agency?: string | undefined;
  contact?: string | undefined;
  attachment: { filename: string; content: Buffer; contentType: string };
}

export interface Mailer {
  /** Resolves once the server accepted the message; rejects with its reason otherwise. */
  send(mail: ReportMail): Promise<void>;
  /** Connects and, with a user, logs in: what `visync doctor` checks before a first scheduled report. */
  verify(): Promise<void>;
  close(): void;
}

/** One transport (its connection reused) for the mails of one delivery. */
export async function openMailer(smtp: SmtpConfig, env: NodeJS.ProcessEnv = process.env): Promise<Mailer> {
  const auth = smtpAuth(smtp, env);
  // Loaded when a report is mailed: nothing else needs nodemailer.
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(auth ? { auth } : {}),
    ...SMTP_TIMEOUTS,
  });
  return {
    async send(m) {
      await transport.sendMail({ ...reportMessage(m), from: smtp.from });
    },
    async verify() {
      await transport.verify();
    },
    close: () => transport.close(),
  };
}

/** Subject, text and HTML body (every configured or API string escaped), attachment. */
export function reportMessage(m: ReportMail) {
  const subject = `${m.clientName}: AI visibility report ${m.period.label}`;
  const lines = [
    'Hello,',
    '',
    `attached is the AI visibility report of ${m.clientName} for ${m.period.label} (${m.period.from} to ${m.period.to}).`,
    '',
    ...(m.agency ? [m.agency] : []),
    ...(m.contact ? [m.contact] : []),
  ];
  const html = `<!doctype html><html><body>${lines
    .map((l) => (l === '' ? '' : `<p>${escapeText(l)}</p>`))
    .join('')}</body></html>`;
  return {
    to: m.to,
    subject,
    text: `${lines.join('\n')}\n`,
    html,
    messageId: m.messageId,
    attachments: [m.attachment],
  };
}
