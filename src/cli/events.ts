// `visync events`: the brand events of complete runs (docs/operations.md, "Brand watch"), read from
// the object store only, so it works without Redis or a warehouse. With --digest, the weekly
// ranking of workspaces the digest webhook sends (src/delivery/digest/weekly.ts), without sending it.
import { type Command, InvalidArgumentError } from 'commander';
import { EVENT_TYPES } from '../catalogue/brand-events.js';
import { type Period, parsePeriod } from '../history/period.js';
import { isIsoDate } from '../util/time.js';
import { EXIT_USAGE } from './exit-codes.js';
import { unknownWorkspaceLine } from './options.js';
import { CliError, type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';

interface EventsFlags {
  account?: string;
  brand?: string;
  since?: string;
  type?: string;
  json?: boolean;
  digest?: boolean;
  week?: Period;
}

function parseSince(value: string): string {
  if (!isIsoDate(value)) throw new InvalidArgumentError('expected a date as YYYY-MM-DD, e.g. 2026-11-01');
  return value;
}

function parseType(value: string): string {
  if (!(EVENT_TYPES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${EVENT_TYPES.join(', ')}`);
  return value;
}

function parseWeek(value: string): Period {
  const p = parsePeriod(value);
  if (p?.kind !== 'week') throw new InvalidArgumentError('expected an ISO week as YYYY-Www, e.g. 2026-W44');
  return p;
}

/** The listing's filters do not apply to a digest, which ranks every workspace of one week. */
function checkDigestFlags(flags: EventsFlags): void {
  if (flags.week && !flags.digest)
    throw new CliError('--week goes with --digest: add --digest, or use --since to list events', EXIT_USAGE);
  const clash = (['brand', 'since', 'type'] as const).filter((k) => flags.digest && flags[k] !== undefined);
  if (clash.length)
    throw new CliError(
      `--digest ranks every workspace of one week: drop --${clash.join(', --')} (choose the week with --week)`,
      EXIT_USAGE,
    );
}

export function registerEvents(program: Command, state: ProgramState, io: CommandIo): void {
  program
    .command('events')
    .summary('what changed for each workspace, night by night (no Redis needed)')
    .description(
      'Lists the brand_events of complete runs from the object store, oldest run first and per run ' +
        'the most severe first: score drops and rises, share-of-voice drops, new and resolved ' +
        'suspected-false claims and engine conflicts, new winning competitors, recommendations opened ' +
        'and closed, workspaces added and removed. Every recorded event is listed; the watch rules ' +
        'decide only what the alert sends.',
    )
    .option('--account <name>', 'only this account')
    .option('--brand <id>', 'only this workspace')
    .option('--since <YYYY-MM-DD>', 'only runs dated on or after this day', parseSince)
    .option('--type <type>', 'only this event type', parseType)
    .option('--digest', "the weekly digest instead: the account's workspaces ranked by change")
    .option(
      '--week <YYYY-Www>',
      'with --digest: this ISO week (default: the week the latest digest covers, else last week)',
      parseWeek,
    )
    .option('--json', 'print JSON for scripts')
    .action(exitWith(state, (flags: EventsFlags, cmd: Command) => eventsCommand(flags, cmd, io)));
}

/** `visync events`: what changed for each workspace, night by night. */
async function eventsCommand(flags: EventsFlags, cmd: Command, io: CommandIo): Promise<number> {
  checkDigestFlags(flags);
  if (flags.digest) return (await import('./events-digest.js')).printDigests(flags, cmd, io);
  const [
    { readConfigWithoutKeys },
    { chosenAccounts },
    { readAccountEvents, bySeverityOf },
    { describeEvent },
    { ObjectStores },
    { displayNames },
  ] = await Promise.all([
    import('../config/read-config.js'),
    import('./accounts.js'),
    import('../events/read.js'),
    import('../events/describe.js'),
    import('../sinks/create-store.js'),
    import('../delivery/digest/display-names.js'),
  ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  const chosen = chosenAccounts(config, flags.account);
  const stores = new ObjectStores();
  try {
    const accounts = flags.account ? [flags.account] : config.accounts.map((a) => a.name);
    const lines: string[] = [];
    const events = [];
    let known = false;
    for (const name of accounts) {
      const store = await stores.forAccount(config, name);
      const { events: found, workspaces } = await readAccountEvents(store, name, {
        brand: flags.brand,
        since: flags.since,
        type: flags.type,
      });
      known ||= flags.brand !== undefined && workspaces.has(flags.brand);
      const account = chosen.find((a) => a.name === name) ?? config.accounts.find((a) => a.name === name);
      // A person reads the text: clients and engines by their names (ids stay in --json).
      const naming =
        flags.json || !account
          ? undefined
          : await displayNames(config, account, store, new Set(found.map((e) => e.brand_id)));
      // Per run, the most severe first (the alert's order).
      const runs = [...new Set(found.map((e) => e.run_id))];
      for (const run of runs)
        for (const e of found.filter((x) => x.run_id === run).sort(bySeverityOf)) {
          events.push(e);
          if (naming)
            lines.push(
              `${e.snapshot_date}  ${e.account}  ${naming.workspace(e.brand_id)}  ${describeEvent(e, (x) => x, naming)}`,
            );
        }
    }
    // As `visync report` answers a --brand no account has: one line, a usage error.
    if (flags.brand !== undefined && !known) {
      io.err(unknownWorkspaceLine(flags.brand, accounts));
      return EXIT_USAGE;
    }
    if (flags.json) io.verbatim(JSON.stringify(events, null, 2));
    else if (!events.length) io.out('no events: no change between complete runs matches');
    else for (const line of lines) io.out(line);
    return 0;
  } finally {
    await stores.close();
  }
}
