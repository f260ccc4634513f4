// Scheduled reports are e-mailed (docs/reports.md, "Scheduled reports and delivery"): doctor checks,
// for every account and workspace that has recipients, that an `smtp` block reaches them, that its
// password variable is set, and that the server answers and accepts the login, so the first month's
// reports are not the first time anyone finds out. A login that would go in cleartext (no TLS on
// port 465, no STARTTLS offered) FAILs unless smtp.allowInsecure says so on purpose.
import type { AccountConfig, Config, SmtpConfig } from '../config/schema.js';
import { MailConfigError, mailFailureReason, openMailer } from '../delivery/mail/smtp.js';
import { reportSettingsFor } from '../report/settings.js';
import { errorMessage } from '../util/errors.js';
import { type CheckResult, fail, pass } from './check.js';

export const MAIL_CHECK = 'report mail';
export const MAIL_FIX =
  'set reports.smtp { host, port, secure, from, user, passwordEnv } where the recipients are, and the password variable where visync runs';

interface Delivery {
  where: string;
  smtp: SmtpConfig | undefined;
}

/** Each account (and each workspace with its own settings) that mails reports, with its smtp. */
export function mailDeliveries(config: Config, accounts: readonly AccountConfig[]): Delivery[] {
  const out: Delivery[] = [];
  for (const a of accounts) {
    for (const ws of [undefined, ...Object.keys(a.reports?.workspaces ?? {})]) {
      const s = reportSettingsFor(config, a, ws);
      if (!s.recipients?.length) continue;
      out.push({
        where: ws === undefined ? `account ${a.name}` : `account ${a.name}, workspace ${ws}`,
        smtp: s.smtp,
      });
    }
  }
  return out;
}

export async function checkReportMail(
  deliveries: readonly Delivery[],
  env: NodeJS.ProcessEnv,
): Promise<CheckResult> {
  const missing = deliveries.filter((d) => d.smtp === undefined).map((d) => d.where);
  if (missing.length)
    return fail(MAIL_CHECK, `recipients but no reports.smtp: ${missing.join('; ')}`, MAIL_FIX);
  // One server checked once, however many accounts share it.
  const servers = new Map<string, SmtpConfig>();
  for (const d of deliveries) {
    const smtp = d.smtp as SmtpConfig;
    servers.set(`${smtp.host}:${smtp.port}:${smtp.user ?? ''}`, smtp);
  }
  const ok: string[] = [];
  for (const smtp of servers.values()) {
    const at = `${smtp.host}:${smtp.port}${smtp.user ? ` as ${smtp.user}` : ''}`;
    try {
      const mailer = await openMailer(smtp, env);
      try {
        await mailer.verify();
      } finally {
        mailer.close();
      }
    } catch (err) {
      const cleartext = (err as { code?: unknown }).code === 'ETLS' && !smtp.secure;
      const detail =
        err instanceof MailConfigError
          ? err.message
          : cleartext
            ? `SMTP ${at}: ${mailFailureReason(smtp, err)}`
            : `SMTP ${at} refused: ${errorMessage(err)}`;
      return fail(MAIL_CHECK, detail, MAIL_FIX);
    }
    ok.push(at);
  }
  return pass(MAIL_CHECK, `SMTP ${ok.join(', ')} answers (${deliveries.length} with recipients)`);
}
