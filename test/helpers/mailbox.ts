// A local SMTP server (smtp-server) for report mail tests, its mail read back with mailparser: what
// it received (logins, mails, connections) and knobs for the faults a test needs (a refused login,
// a mail held without an answer, a slow acceptance, a hook run as a mail is accepted, an address
// refused at RCPT TO with 550 while `refusing` holds it). Also a TCP
// server that accepts and never greets. Everything is closed after the test.
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterEach } from 'vitest';

const closers: (() => Promise<unknown>)[] = [];
/** Closes what this helper opened for the test (also registered per file by test/setup/cleanups.ts). */
export async function closeMailboxes(): Promise<void> {
  while (closers.length) await closers.pop()?.();
}
afterEach(closeMailboxes);

export interface Mailbox {
  port: number;
  mails: ParsedMail[];
  /** Each accepted mail's envelope recipients (RCPT TO), in the order of `mails`. */
  envelopes: string[][];
  /** Passwords the server was given at AUTH, accepted or not. */
  logins: string[];
  connections: number;
  /** Mails whose DATA arrived, held or not (the held one never answered). */
  dataStarted: number;
  /**
   * Addresses (lower-cased) answered `550 5.1.1 <address>: mailbox unavailable` at RCPT TO; a test
   * deletes one to have the server take it on the next try.
   */
  refusing: Set<string>;
  /** Each RCPT TO the server refused, in order. */
  refused: string[];
}

export interface MailboxOptions {
  /** Refuse every login (535). */
  refuseLogin?: boolean;
  /** Never answer the DATA of the n-th mail (1-based): the sender waits until it is killed. */
  holdMail?: number;
  /** Wait this long before accepting each mail. */
  acceptDelayMs?: number;
  /** Run before a mail is accepted (the server has its whole message). */
  onAccept?: (mail: ParsedMail) => void | Promise<void>;
  /** Addresses to refuse at RCPT TO (550), per recipient: the others of the same mail are taken. */
  refuse?: string[];
}

/** A server without TLS that takes AUTH in cleartext (allowInsecureAuth): what a client sends is up to the client. */
export async function mailbox(o: MailboxOptions = {}): Promise<Mailbox> {
  const box: Mailbox = {
    port: 0,
    mails: [],
    envelopes: [],
    logins: [],
    connections: 0,
    dataStarted: 0,
    refusing: new Set((o.refuse ?? []).map((a) => a.toLowerCase())),
    refused: [],
  };
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Closing after the test ends a held connection at once (the default waits 30 s for it).
    closeTimeout: 50,
    onConnect(_session, cb) {
      box.connections++;
      cb();
    },
    onAuth(auth, _session, cb) {
      box.logins.push(String(auth.password));
      if (o.refuseLogin) cb(new Error('535 5.7.8 authentication failed'));
      else cb(null, { user: auth.username });
    },
    onRcptTo(address, _session, cb) {
      if (!box.refusing.has(address.address.toLowerCase())) return cb();
      box.refused.push(address.address);
      cb(Object.assign(new Error(`5.1.1 <${address.address}>: mailbox unavailable`), { responseCode: 550 }));
    },
    onData(stream, session, cb) {
      const n = ++box.dataStarted;
      simpleParser(stream).then(
        async (mail) => {
          if (n === o.holdMail) return; // no answer, ever
          if (o.acceptDelayMs) await new Promise((r) => setTimeout(r, o.acceptDelayMs));
          await o.onAccept?.(mail);
          box.mails.push(mail);
          box.envelopes.push(session.envelope.rcptTo.map((a) => a.address));
          cb();
        },
        (err: Error) => cb(err),
      );
    },
  });
  // A sender killed mid-send (the crash tests) resets its connection: smtp-server reports that as
  // an 'error' event, which with no listener would end the test process.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  box.port = (server.server.address() as AddressInfo).port;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return box;
}

/** Accepts connections and never says a word (no greeting). */
export async function silentSmtp(): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    n++;
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, connections: () => n };
}

/** The addresses a mailbox got, one per mail, sorted. */
export function mailedTo(box: Mailbox): string[] {
  return box.mails.map((m) => (m.to as { text: string }).text).sort();
}
