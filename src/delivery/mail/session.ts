// The SMTP side of one delivery (a worker's report job: one account's night; or one `visync report
// send`): one mailer per server and login, its connection kept across workspaces, and a breaker.
// The first refused login, unreachable or silent server stops every further send to that server
// and login for the rest of the delivery, with one alert: 500 workspaces of 3 recipients never
// make 1,500 logins a night against a server that refuses them (docs/reports.md).
import type { SmtpConfig } from '../../config/schema.js';
import { type Mailer, type MailTimeouts, openMailer, SMTP_TIMEOUTS } from './smtp.js';

export function serverKey(smtp: SmtpConfig): string {
  return `${smtp.host}:${smtp.port}:${smtp.user ?? ''}`;
}

export function serverName(smtp: SmtpConfig): string {
  return `${smtp.host}:${smtp.port}${smtp.user ? ` as ${smtp.user}` : ''}`;
}

export class MailSession {
  readonly #mailers = new Map<string, Promise<Mailer>>();
  readonly #broken = new Map<string, string>();

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly timeouts: MailTimeouts = SMTP_TIMEOUTS,
    /** Told once per server the first time it breaks (the alert). */
    private readonly onBreak?: (smtp: SmtpConfig, reason: string) => Promise<void>,
  ) {}

  /** Why sending to this server stopped in this delivery; undefined while it has not. */
  broken(smtp: SmtpConfig): string | undefined {
    return this.#broken.get(serverKey(smtp));
  }

  /** The server's mailer, opened on first use (MailConfigError: the password variable is unset). */
  mailer(smtp: SmtpConfig): Promise<Mailer> {
    const key = serverKey(smtp);
    let m = this.#mailers.get(key);
    if (!m) {
      m = openMailer(smtp, this.env, this.timeouts);
      m.catch(() => this.#mailers.delete(key));
      this.#mailers.set(key, m);
    }
    return m;
  }

  /** Stops sending to `smtp` for the rest of the delivery; the first time, tells onBreak. */
  async trip(smtp: SmtpConfig, reason: string): Promise<void> {
    const key = serverKey(smtp);
    if (this.#broken.has(key)) return;
    this.#broken.set(key, reason);
    const m = this.#mailers.get(key);
    this.#mailers.delete(key);
    m?.then((x) => x.close()).catch(() => {});
    await this.onBreak?.(smtp, reason);
  }

  async close(): Promise<void> {
    const open = [...this.#mailers.values()];
    this.#mailers.clear();
    for (const m of open) await m.then((x) => x.close()).catch(() => {});
  }
}
