// `visync report link`: a time-limited link to a made report that a client can open on a phone (an
// S3 presigned GET of its report.html, or its PDF when it has no page; docs/reports.md, "A link to
// the report"). Signed on this machine, no request made; an fs store has no address to give (exit
// 78). Registering it loads only commander; the action imports the rest.
import type { Command } from 'commander';
import { EXIT_CONFIG, EXIT_USAGE } from './exit-codes.js';
import { collect } from './options.js';
import { CliError, type CliIo, exitWith, type ProgramState } from './program-state.js';

interface LinkFlags {
  account?: string;
  brand?: string[];
  period?: string;
  expires?: string;
}

export function registerReportLink(report: Command, state: ProgramState, io: CliIo): void {
  report
    .command('link')
    .summary('print a time-limited link to a made report (S3 store), for a client to open on a phone')
    .description(
      "Prints a presigned URL of the workspace's report.html (its report.pdf when the report has no " +
        'page) in the S3 store: anyone with the URL can read that one file until it expires, at most 7 ' +
        'days (the limit of S3 Signature Version 4). The URL names the access key id of the credentials ' +
        'that signed it (X-Amz-Credential), never the secret; rotating that key revokes every link it ' +
        'signed. The link opens whatever report is at that place: a report made again is the one it ' +
        "opens. Lifetime: --expires, else the workspace's reports.mail.link.expires, else 7d. " +
        'Exit codes: 0 printed, 1 no report made for the period or the store could not be read, 64 usage ' +
        'error, 78 config error (an fs store: a link needs S3).',
    )
    .option('--account <name>', 'the account (may be left out when the config has one)')
    .option('--brand <id>', 'the workspace whose report the link opens (one)', collect)
    .option('--period <period>', "the report's period as the store names it (default: the newest one made)")
    .option('--expires <lifetime>', 'how long the link works: 90m, 48h, 7d (at most 7d)')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  visync report link --account acme --brand ws_42 --period 2026-11',
        '  visync report link --account acme --brand ws_42 --expires 48h',
        '',
        'The URL goes to stdout, one line; when it stops working goes to stderr.',
        'The mail carries such a link when reports.mail.link is set (docs/reports.md).',
      ].join('\n'),
    )
    .action(exitWith(state, (_own: LinkFlags, cmd: Command) => linkCommand(cmd, io)));
}

async function linkCommand(cmd: Command, io: CliIo): Promise<number> {
  const { oneReport, noReportLine } = await import('./one-report.js');
  const { flags, brandId, config, account } = await oneReport<LinkFlags>(
    cmd,
    'report link',
    'the workspace whose report the link opens',
  );
  const [
    { ObjectStores },
    { reportSettingsFor },
    { linkLifetime, linkSeconds, LINK_MAX_SECONDS },
    { reportLink, LINK_NEEDS_S3 },
    { newestReportPeriod },
    { errorMessage },
  ] = await Promise.all([
    import('../sinks/create-store.js'),
    import('../report/settings.js'),
    import('../config/mail-templates.js'),
    import('../delivery/report-link.js'),
    import('../delivery/report-periods.js'),
    import('../util/errors.js'),
  ]);
  // The config's rule for reports.mail.link.expires (src/config/mail-templates.ts), said as a usage error.
  if (flags.expires !== undefined && !linkLifetime.safeParse(flags.expires).success)
    throw new CliError(
      `--expires ${JSON.stringify(flags.expires)}: expected a lifetime such as 90m, 48h or 7d, at most 7d (an S3 presigned URL's limit)`,
      EXIT_USAGE,
    );
  if (!config.sinks.s3) throw new CliError(LINK_NEEDS_S3, EXIT_CONFIG);
  const lifetime = flags.expires ?? reportSettingsFor(config, account, brandId).mail.link?.expires;
  const seconds = lifetime === undefined ? LINK_MAX_SECONDS : (linkSeconds(lifetime) as number);
  const stores = new ObjectStores();
  try {
    const store = await stores.forAccount(config, account);
    const period = flags.period ?? (await newestReportPeriod(store, account.name, brandId));
    if (!period) {
      io.err(noReportLine(brandId, store.location, account.name));
      return 1;
    }
    const link = await reportLink(store, { account: account.name, brandId, period }, seconds, new Date());
    io.out(link.url);
    io.err(
      `${account.name} ${brandId} ${period}: ${link.file}, valid until ${link.expires.toISOString()}; anyone with the link can read it until then`,
    );
    return 0;
  } catch (err) {
    // A LinkError (no manifest, no page nor PDF) and a store's failure: the same one line.
    io.err(`visync: ${errorMessage(err)}`);
    return 1;
  } finally {
    await stores.close();
  }
}
