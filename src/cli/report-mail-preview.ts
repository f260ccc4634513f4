// `visync report mail-preview`: shows the e-mail a made report's recipients get (subject, text part;
// with --out also the HTML part), composed as `report send` composes it, with the agency's templates
// (reports.mail.templates). Sends nothing, records nothing: for checking a template before the
// nightly run mails it. Registering it loads only commander; the action imports the rest.
import type { Command } from 'commander';
import { EXIT_USAGE } from './exit-codes.js';
import { collect } from './options.js';
import { CliError, type CliIo, exitWith, type ProgramState } from './program-state.js';

interface PreviewFlags {
  account?: string;
  brand?: string[];
  period?: string;
  out?: string;
}

export function registerReportMailPreview(report: Command, state: ProgramState, io: CliIo): void {
  report
    .command('mail-preview')
    .summary("show the e-mail a made report's recipients get, without sending it")
    .description(
      "Composes the e-mail of the workspace's made report as `visync report send` would (the words of " +
        "reports.mail.templates or the built-in ones, in the report's locale, with its summary and the " +
        "account manager's note, and the link when reports.mail.link is set) and prints its subject and " +
        'text part; --out DIR also writes mail.txt and mail.html there. Sends nothing and records ' +
        'nothing; with reports.mail.link the link shown is signed and works like the mailed one. Exit codes: 0 shown, 1 no report made for the period, 64 usage error, 78 config error.',
    )
    .option('--account <name>', 'the account (may be left out when the config has one)')
    .option('--brand <id>', 'the workspace whose report is mailed (one)', collect)
    .option('--period <period>', "the report's period as the store names it (default: the newest one made)")
    .option('--out <dir>', 'also write mail.txt and mail.html into this folder')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  visync report mail-preview --account acme --brand ws_42 --period 2026-11',
        '  visync report mail-preview --brand ws_42 --out ./mail-check    # then open mail-check/mail.html',
      ].join('\n'),
    )
    .action(exitWith(state, (_own: PreviewFlags, cmd: Command) => previewCommand(cmd, io)));
}

async function previewCommand(cmd: Command, io: CliIo): Promise<number> {
  const { oneReport, noReportLine } = await import('./one-report.js');
  const { flags, brandId, config, account } = await oneReport<PreviewFlags>(
    cmd,
    'report mail-preview',
    'the workspace whose mail is shown',
  );
  const [
    { ObjectStores },
    { reportSettingsFor },
    { parsePeriod },
    { previewMail },
    { newestReportPeriod },
    { errorMessage },
    { writeFile, mkdir },
    { join },
  ] = await Promise.all([
    import('../sinks/create-store.js'),
    import('../report/settings.js'),
    import('../history/period.js'),
    import('../delivery/mail/preview.js'),
    import('../delivery/report-periods.js'),
    import('../util/errors.js'),
    import('node:fs/promises'),
    import('node:path'),
  ]);
  const stores = new ObjectStores();
  try {
    const store = await stores.forAccount(config, account);
    const label = flags.period ?? (await newestReportPeriod(store, account.name, brandId));
    const period = label === undefined ? undefined : parsePeriod(label);
    if (flags.period !== undefined && !period)
      throw new CliError(
        `malformed period ${JSON.stringify(flags.period)}: expected YYYY-MM, YYYY-Www or YYYY-MM-DD_YYYY-MM-DD`,
        EXIT_USAGE,
      );
    if (!period) {
      io.err(noReportLine(brandId, store.location, account.name));
      return 1;
    }
    const settings = reportSettingsFor(config, account, brandId);
    const mail = await previewMail({ store, account, brandId, period, settings, now: new Date() });
    io.out(`Subject: ${mail.subject}`);
    io.out(`Attachment: ${mail.attachment}`);
    io.out('');
    for (const line of mail.text.replace(/\n$/, '').split('\n')) io.out(line);
    if (flags.out) {
      await mkdir(flags.out, { recursive: true });
      await writeFile(join(flags.out, 'mail.txt'), `Subject: ${mail.subject}\n\n${mail.text}`);
      await writeFile(join(flags.out, 'mail.html'), mail.html);
      io.err(`wrote ${join(flags.out, 'mail.txt')} and ${join(flags.out, 'mail.html')}`);
    }
    return 0;
  } catch (err) {
    if (err instanceof CliError) throw err;
    io.err(`visync: account ${account.name}, workspace ${brandId}: ${errorMessage(err)}`);
    return 1;
  } finally {
    await stores.close();
  }
}
