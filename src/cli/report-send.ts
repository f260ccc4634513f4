// `visync report send`: mails the drafts (review: true) and any recipient not yet sent of the
// scheduled reports of a period, each send recorded and never repeated (docs/reports.md,
// "Scheduled reports and delivery"). Each send is claimed as the workers claim theirs: in Redis
// when redis.url is configured, else in the object store, so two at once mail a recipient once.
// Every problem is a line of its own and the exit code 1; nothing stops the other recipients.
// Registering it loads only commander; the action imports the rest.
import type { Command } from 'commander';
import type { DeliveryOutcome } from '../delivery/scheduled/types.js';
import type { Period } from '../history/period.js';
import { EXIT_USAGE } from './exit-codes.js';
import { collect } from './options.js';
import { CliError, type CliIo, configOption, exitWith, type ProgramState } from './program-state.js';

interface SendFlags {
  account?: string;
  brand?: string[];
  period?: string;
  resendUnconfirmed?: boolean;
  markSent?: string[];
}

export function registerReportSend(report: Command, state: ProgramState, io: CliIo): void {
  report
    .command('send')
    .summary('e-mail the drafts and unsent scheduled reports of a period to their recipients')
    .description(
      "Sends the scheduled reports of the period (default: each workspace's newest due period) to every " +
        'recipient whose send is not recorded yet: the drafts kept by review: true, and any recipient a ' +
        'worker could not reach. One line per recipient: sent, already sent, claimed (another process ' +
        'sends it now), unconfirmed (a send began and was never recorded as accepted: not mailed again ' +
        'unless --resend-unconfirmed), or the failure. cc and bcc addresses (reports.mail) are sent and ' +
        'recorded each on their own, their lines marked (cc) or (bcc). With --mark-sent it mails nothing: ' +
        'it records the named addresses of the --brand report as sent (delivered by other means) and ' +
        'prints one line each. ' +
        'Exit codes: 0 all sent, 1 a send failed, is unconfirmed or a report was not made, 64 usage error ' +
        '(and a --mark-sent address the report does not have), 78 config error.',
    )
    .option('--account <name>', 'only this account (default: every configured account)')
    .option(
      '--brand <id>',
      'only this workspace (repeat for more; default: all); a report held on the review page is sent only when named',
      collect,
    )
    .option('--period <period>', 'YYYY-MM or YYYY-Www (default: the newest due period of each schedule)')
    .option(
      '--resend-unconfirmed',
      'mail again the recipients whose send began but was never recorded as accepted (same Message-ID)',
    )
    .option(
      '--mark-sent <address>',
      'record this address (recipient, cc or bcc) of the --brand report as sent without mailing it: it was delivered by other means (mailed by hand, or an unconfirmed send the recipient confirmed); repeatable',
      collect,
    )
    .action(exitWith(state, (_own: SendFlags, cmd: Command) => sendCommand(cmd, io)));
}

/** `visync report send`: e-mails the drafts and unsent scheduled reports of a period to their recipients. */
async function sendCommand(cmd: Command, io: CliIo): Promise<number> {
  // `report` has --account, --brand and --period too, and commander gives them to it wherever
  // they stand: read them with the parent's.
  const flags = cmd.optsWithGlobals<SendFlags>();
  const {
    readConfigWithoutKeys,
    ObjectStores,
    parsePeriod,
    sendMadeReports,
    markMadeReports,
    mailSession,
    findAccount,
    commandLogger,
    sendClaimsFor,
    errorMessage,
    chosenAccounts,
    addresseeName,
    describeAddressees,
  } = await sendModules();
  const period = scheduledPeriod(flags, parsePeriod);
  const marks = markFlags(flags);
  const config = readConfigWithoutKeys(configOption(cmd));
  const names = chosenAccounts(config, flags.account).map((a) => a.name);
  const brands = flags.brand ?? [];
  // Silent: each recipient's outcome, failures included, is a line of its own below.
  const logger = commandLogger({ logLevel: 'silent' });
  const stores = new ObjectStores();
  // One SMTP session for the whole command: a refused login stops every account's sends to
  // that server at once, instead of one login per recipient.
  const mail = mailSession({ config, logger });
  const claims = sendClaimsFor(config, async (url) =>
    (await import('../../jobs/redis-claims.js')).commandClaims(
      { ...config.redis, url },
      'visync report send',
    ),
  );
  const resend = flags.resendUnconfirmed === true;
  let code = 0;
  /** A --mark-sent address a report does not have: exit 64. */
  let refused = false;
  /** Whether any line was printed: without one, the command says there was nothing to send. */
  let said = false;
  const found = new Set<string>();
  try {
    for (const name of names) {
      let r: Awaited<ReturnType<typeof sendMadeReports>>;
      try {
        const store = await stores.forAccount(config, name);
        const o = {
          config,
          account: findAccount(config, name),
          store,
          logger,
          mail,
          resendUnconfirmed: resend,
          ...(await claims.forStore(store)),
        };
        // A workspace named by --brand is sent even when held on the review page (that releases it).
        const want = { brands, release: brands, ...(period ? { period } : {}) };
        if (marks) {
          const m = await markMadeReports(o, { ...want, addresses: marks });
          for (const x of m.refused) {
            io.err(
              `visync: --mark-sent ${x.notListed.join(', ')}: not ${x.notListed.length > 1 ? 'addresses' : 'an address'} of the report ${name} ${x.brandId} ${x.period} (${describeAddressees(x.addressees)}); name one of them`,
            );
            refused = true;
          }
          r = { outcomes: m.outcomes, known: m.known, workspaces: [] };
        } else r = await sendMadeReports(o, want);
      } catch (err) {
        // The account's store or runs could not be read: its line, and on to the next.
        io.out(`${name}: nothing sent: ${errorMessage(err)}; fix it and run visync report send again`);
        code = 1;
        said = true;
        continue;
      }
      // Known to a run of the account: one without days in the period has its own line (exit 1).
      for (const w of r.known) found.add(w);
      for (const w of r.outcomes) {
        said = true;
        if (printOutcome(name, w, io, addresseeName)) code = 1;
      }
    }
  } finally {
    await mail.close();
    await claims.close();
    await stores.close();
  }
  const exit = finishSend({ code, said: said || refused, found, brands }, io);
  return refused ? EXIT_USAGE : exit;
}

/** --mark-sent: the addresses, only with --brand (it settles one workspace's report, named) and never with --resend-unconfirmed. */
function markFlags(flags: SendFlags): string[] | undefined {
  if (!flags.markSent?.length) return undefined;
  if (!flags.brand?.length)
    throw new CliError(
      '--mark-sent needs --brand: name the workspace whose report was delivered by other means',
      EXIT_USAGE,
    );
  if (flags.resendUnconfirmed)
    throw new CliError(
      '--mark-sent and --resend-unconfirmed contradict each other: one records a send without mailing, the other mails',
      EXIT_USAGE,
    );
  return flags.markSent;
}

/** What `report send` loads when it runs (not for --help): the modules' exports as one. */
async function sendModules() {
  const [
    readConfig,
    createStore,
    period,
    deliver,
    accountSettings,
    log,
    claims,
    errors,
    accounts,
    addressees,
  ] = await Promise.all([
    import('../config/read-config.js'),
    import('../sinks/create-store.js'),
    import('../history/period.js'),
    import('../delivery/scheduled/deliver.js'),
    import('../config/account-settings.js'),
    import('./command-logger.js'),
    import('../delivery/claims/choose.js'),
    import('../util/errors.js'),
    import('./accounts.js'),
    import('../delivery/scheduled/addressees.js'),
  ]);
  return {
    ...readConfig,
    ...createStore,
    ...period,
    ...deliver,
    ...accountSettings,
    ...log,
    ...claims,
    ...errors,
    ...accounts,
    ...addressees,
  };
}

/** --period: a month or an ISO week, the periods reports are scheduled for; unset: each schedule's newest. */
function scheduledPeriod(
  flags: SendFlags,
  parsePeriod: (text: string) => Period | undefined,
): Period | undefined {
  const period = flags.period === undefined ? undefined : parsePeriod(flags.period);
  if (flags.period !== undefined && period?.kind !== 'month' && period?.kind !== 'week')
    throw new CliError(
      `malformed period ${JSON.stringify(flags.period)}: expected YYYY-MM or YYYY-Www (a scheduled report's period)`,
      EXIT_USAGE,
    );
  return period;
}

/** One workspace's outcome: a line per recipient, or one saying why none; true when any failed. */
function printOutcome(
  account: string,
  w: DeliveryOutcome,
  io: CliIo,
  /** How a line names an address (a copy's with `(cc)`, `(bcc)`: src/delivery/scheduled/addressees.ts). */
  nameOf: (x: DeliveryOutcome['recipients'][number]) => string,
): boolean {
  const head = `${account} ${w.brandId} ${w.period}`;
  let failed = false;
  if (w.held) {
    // Held on purpose: said, not a failure.
    const why = w.held.reason ? ` (${w.held.reason})` : '';
    const release = `approve it on the worker's review page (/review/) or send it with visync report send --account ${account} --brand ${w.brandId} --period ${w.period}`;
    // Placed while this send ran: the addresses mailed before it are listed below; the rest wait.
    if (w.state === 'sent' && w.recipients.length)
      io.out(`${head}: held by ${w.held.by} at ${w.held.at}${why} while it was sent: every address has it`);
    else if (w.recipients.length)
      io.out(
        `${head}: held by ${w.held.by} at ${w.held.at}${why}: not sent to the addresses not listed below; ${release}`,
      );
    else io.out(`${head}: held by ${w.held.by} at ${w.held.at}${why}: not sent; ${release}`);
  } else if (!w.recipients.length) {
    io.out(`${head}: ${w.reason ?? `no recipients (${w.state})`}`);
    if (w.reason) failed = true;
  }
  for (const x of w.recipients) {
    io.out(`${head} ${nameOf(x)}: ${x.result}${gotWords(x.got)}${x.reason ? `: ${x.reason}` : ''}`);
    if (x.result === 'failed' || x.result === 'unconfirmed') failed = true;
  }
  if (w.recordFailure) {
    io.out(`${head}: ${w.recordFailure}`);
    failed = true;
  }
  return failed;
}

/**
 * Which version a recipient has, where a period had a to-date report: ` (to date through 2026-12-06)`,
 * ` (final report, after the to-date one through 2026-12-06)`; nothing for a final report alone.
 */
function gotWords(got: DeliveryOutcome['recipients'][number]['got']): string {
  if (got?.to_date) return got.through ? ` (to date through ${got.through})` : ' (to date)';
  if (got?.afterToDate !== undefined)
    return ` (final report, after ${got.afterToDate ? `the to-date one through ${got.afterToDate}` : 'a to-date one'})`;
  return '';
}

/** "nothing to send" when no line was printed, the unknown --brand lines, and the exit code. */
function finishSend(
  o: { code: number; said: boolean; found: Set<string>; brands: string[] },
  io: CliIo,
): number {
  if (!o.said)
    io.out(
      'nothing to send: no scheduled report has been made (reports.schedule with recipients: the workers make each one after the nightly run that completes its period, docs/reports.md)',
    );
  const unknown = o.brands.filter((b) => !o.found.has(b));
  for (const b of unknown) io.err(`visync: unknown workspace ${JSON.stringify(b)}: no complete run has it`);
  return unknown.length ? EXIT_USAGE : o.code;
}
