import type { Command } from 'commander';
import type { Config } from '../config/schema.js';
import type { Manifest } from '../records/manifest.js';
import { RUN_ID_PATTERN } from '../records/run-id.js';
import type { ObjectStores } from '../sinks/create-store.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { EXIT_USAGE } from './exit-codes.js';
import { addLogOptions, type LogFlags } from './log-options.js';
import { CliError, type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';

type ReplayFlags = { run: string; account?: string; json?: boolean } & LogFlags;

export function registerReplay(program: Command, state: ProgramState, io: CommandIo): void {
  addLogOptions(program.command('replay'))
    .summary("rebuild a run's curated files and BigQuery loads from its raw landing (no API calls)")
    .description(
      "Rebuilds a run's curated tables/ files (byte for byte) and latest/ bundles from its raw/ landing, " +
        'then loads into BigQuery only the tables whose load for that run has not succeeded (a failed load, ' +
        'a table added since). Records a new sync_runs row for the run (newer recorded_at) and rewrites the ' +
        "run's manifest with the new load results and replayed_at. " +
        'Makes no API call, so it works after a key was revoked. With redis configured, refuses a run that ' +
        'waits for its load batch or is in one (the batch loads it); when Redis does not answer, also any run whose ' +
        'manifest does not show it was loaded without a batch. Exit codes as for run --once.',
    )
    .requiredOption('--run <run_id>', 'the run id (from run --once output, status, or runs/ in the store)')
    .option('--account <name>', 'the account of the run (needed only when several accounts have that run id)')
    .option('--json', 'print one JSON document: the replayed run, its loads and files, the exit code')
    .addHelpText(
      'after',
      '\nExamples:\n  visync replay --run 20261121T230508Z-sync-3bb05a\n  visync replay --run 20261121T230508Z-sync-3bb05a --json',
    )
    .action(exitWith(state, (flags: ReplayFlags, cmd: Command) => replayCommand(flags, cmd, io)));
}

/** `visync replay`: rebuilds a run's curated files and BigQuery loads from its raw landing. */
async function replayCommand(flags: ReplayFlags, cmd: Command, io: CommandIo): Promise<number> {
  if (!RUN_ID_PATTERN.test(flags.run))
    throw new CliError(`--run: not a run id: ${JSON.stringify(flags.run)}`, EXIT_USAGE);
  const [
    { readConfigWithoutKeys },
    replay,
    { RunLoaders },
    { exitCodeFor },
    { ObjectStores },
    { claimStore },
    { commandLogger },
  ] = await Promise.all([
    import('../config/read-config.js'),
    import('../run/replay.js'),
    import('../run/warehouse.js'),
    import('../records/run-state.js'),
    import('../sinks/create-store.js'),
    import('./claim-stores.js'),
    import('./command-logger.js'),
  ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  const logger = commandLogger(flags);
  // Workers may hold the run for a load batch, which loads it: refused rather than loaded twice.
  const check = config.redis.url
    ? await (await import('../../jobs/replay-guard.js')).checkReplay(config, flags.run)
    : undefined;
  if (check?.ok === false) throw new CliError(check.refusal);
  const { ReplayError, replayRun } = replay;
  const stores = new ObjectStores();
  try {
    const { account, store, manifest } = await findRun(stores, config, flags, replay);
    if (check?.ok === 'unchecked') {
      // Redis did not answer: the manifest decides, before anything is loaded or rewritten.
      const { uncheckedReplay } = await import('../../jobs/replay-guard.js');
      const verdict = uncheckedReplay(flags.run, check.reason, manifest);
      if (!verdict.ok) throw new CliError(verdict.refusal);
      io.err(`visync: ${verdict.notice}`);
    }
    // Before anything is loaded or rewritten: a store a newer release wrote is not (exit 78).
    await claimStore(store);
    const loader = await new RunLoaders().forAccount(config, account);
    const m = await replayRun({
      store,
      runId: flags.run,
      logger,
      account,
      loader,
    });
    const failed = m.loads.filter((l) => l.status === 'failed');
    for (const l of failed) io.err(`visync: load of ${l.table} failed: ${l.error}`);
    if (flags.json) {
      await printReplayJson(m, store, exitCodeFor(m.status), io);
      return exitCodeFor(m.status);
    }
    io.out((await import('./run-lines.js')).replayedLine(m));
    return exitCodeFor(m.status);
  } catch (err) {
    if (err instanceof ReplayError) throw new CliError(err.message);
    throw err;
  } finally {
    await stores.close();
  }
}

/**
 * The run to replay and the store it is in. Accounts may write to stores of their own: the run is
 * looked for in each distinct one, and must belong to one account only.
 */
async function findRun(
  stores: ObjectStores,
  config: Config,
  flags: ReplayFlags,
  { ReplayError, locateRun }: typeof import('../run/replay.js'),
): Promise<{ account: string; store: ObjectStore; manifest?: Manifest }> {
  const names = flags.account ? [flags.account] : config.accounts.map((a) => a.name);
  const found: { account: string; store: ObjectStore; manifest?: Manifest }[] = [];
  let notFound: unknown;
  for (const g of await stores.grouped(config, names)) {
    try {
      const at = await locateRun(g.store, flags.run, flags.account);
      if (g.accounts.includes(at.account))
        found.push({ account: at.account, store: g.store, manifest: at.manifest });
    } catch (err) {
      if (!(err instanceof ReplayError)) throw err;
      notFound = err;
    }
  }
  if (found.length > 1)
    throw new ReplayError(
      `run ${flags.run} exists for several accounts (${found.map((f) => f.account).join(', ')}): pass --account`,
    );
  if (!found[0]) throw notFound ?? new ReplayError(`run ${flags.run} not found`);
  return found[0];
}

/** --json: the replayed run as `run --once --json` prints a run, with when it was replayed. */
async function printReplayJson(m: Manifest, store: ObjectStore, exit: number, io: CommandIo): Promise<void> {
  const [{ exitFields, runResult }, { problemLines }, { manifestKey }] = await Promise.all([
    import('./json-result.js'),
    import('./run-lines.js'),
    import('../sinks/layout.js'),
  ]);
  const at = `${store.location.replace(/\/$/, '')}/${manifestKey(m.account, m.run_id)}`;
  io.verbatim(
    JSON.stringify(
      {
        ...runResult(m, at, problemLines(m)),
        replayed_at: m.replayed_at,
        curated_files: m.files.filter((f) => f.key.startsWith('tables/')).length,
        ...exitFields(exit),
      },
      null,
      2,
    ),
  );
}
