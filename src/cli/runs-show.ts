// `visync runs show RUN_ID`: one run read from its manifest in the sink (no Redis needed).
import type { Command } from 'commander';
import type { Config } from '../config/schema.js';
import type { Manifest } from '../records/manifest.js';
import { RUN_ID_PATTERN } from '../records/run-id.js';
import type { ObjectStores } from '../sinks/create-store.js';
import { manifestKey } from '../sinks/layout.js';
import { EXIT_USAGE } from './exit-codes.js';
import { CliError, type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';
import { renderRunDetail, runDetail } from './run-detail.js';
import { terminalWidth } from './terminal-width.js';

interface ShowFlags {
  account?: string;
  json?: boolean;
}

export function registerRunsShow(runs: Command, state: ProgramState, io: CommandIo): void {
  runs
    .command('show')
    .summary('one run: status, window, workspaces, loads, drift, requests and times')
    .description(
      'Prints one run from its manifest in the object store: status, kind, window and scope, start and ' +
        'finish, requests, files, each workspace and each table load with its rows and, when it failed, ' +
        "the error whole (wrapped to the terminal's width), and the schema drift found. Works without Redis. " +
        'Exit code: 0 when the run is found (whatever its status), 1 when no manifest of that run exists, ' +
        '64 for a malformed run id or a run id several accounts share (pass --account).',
    )
    .argument('<run_id>', 'the run id (from run, enqueue, status or runs)')
    .option('--account <name>', 'the account of the run (needed only when several accounts have that run id)')
    .option('--json', 'print the run as one JSON document: the manifest plus where it is and sums')
    .addHelpText('after', '\nExample:\n  visync runs show 20261121T230508Z-sync-3bb05a --json')
    .action(exitWith(state, (runId: string, _own: ShowFlags, cmd: Command) => showCommand(runId, cmd, io)));
}

/** `visync runs show`: one run's status, window, workspaces, loads, drift, requests and times. */
async function showCommand(runId: string, cmd: Command, io: CommandIo): Promise<number> {
  // `runs` parses the options it shares with `show` wherever they stand (commander hands a
  // subcommand the options its parents know already parsed): read them from both.
  const flags = cmd.optsWithGlobals() as ShowFlags;
  if (!RUN_ID_PATTERN.test(runId))
    throw new CliError(`runs show: not a run id: ${JSON.stringify(runId)}`, EXIT_USAGE);
  const [{ readConfigWithoutKeys }, { ObjectStores }, { chosenAccounts }] = await Promise.all([
    import('../config/read-config.js'),
    import('../sinks/create-store.js'),
    import('./accounts.js'),
  ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  chosenAccounts(config, flags.account);
  const stores = new ObjectStores();
  try {
    const { manifest, at } = await findRun(config, stores, runId, flags.account);
    const detail = runDetail(manifest, at);
    if (flags.json) io.verbatim(JSON.stringify(detail, null, 2));
    else for (const line of renderRunDetail(detail, terminalWidth())) io.out(line);
    return 0;
  } finally {
    await stores.close();
  }
}

/** The run's manifest, read by its key under each account (no listing of the store). */
async function findRun(
  config: Config,
  stores: ObjectStores,
  runId: string,
  account: string | undefined,
): Promise<{ manifest: Manifest; at: string }> {
  const { readManifest } = await import('../records/manifest.js');
  const names = account ? [account] : config.accounts.map((a) => a.name);
  const found: { manifest: Manifest; at: string }[] = [];
  const looked: string[] = [];
  for (const g of await stores.grouped(config, names)) {
    const location = g.store.location.replace(/\/$/, '');
    looked.push(location);
    for (const name of g.accounts) {
      const manifest = await readManifest(g.store, name, runId);
      if (manifest) found.push({ manifest, at: `${location}/${manifestKey(name, runId)}` });
    }
  }
  if (found.length > 1)
    throw new CliError(
      `run ${runId} exists for several accounts (${found.map((f) => f.manifest.account).join(', ')}): pass --account`,
      EXIT_USAGE,
    );
  if (!found[0])
    throw new CliError(
      `run ${runId} not found: no manifest ${manifestKey(account ?? '*', runId)} under ${looked.join(', ')} (a run still working has none yet: see visync status)`,
    );
  return found[0];
}
