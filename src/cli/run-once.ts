import type { Command } from 'commander';
import { WORKSPACE_ENDPOINTS, type WorkspaceEndpoint } from '../api/endpoints.js';
import type { BudgetOptions, RateBudget } from '../api/rate-budget.js';
import type { AccountConfig, Config } from '../config/schema.js';
import type { LoadResult, Manifest } from '../records/manifest.js';
import type { RunRecorder } from '../records/recorder.js';
import type { LeaseSignal } from '../records/run-lease.js';
import type { InlineRunResult } from '../run/inline/run-inline.js';
import type { RunPlan } from '../run/plan-run.js';
import type { ObjectStores } from '../sinks/create-store.js';
import type { KeyLock } from '../sinks/key-lock.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { addLogOptions, type LogFlags } from './log-options.js';
import { collect, parseDays, parseEndpoints } from './options.js';
import { CliError, type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';
import { problemLines, summaryLine } from './run-lines.js';

export interface RunOnceFlags extends LogFlags {
  once?: boolean;
  account?: string[];
  brand?: string[];
  endpoints?: WorkspaceEndpoint[];
  days?: number;
  plan?: boolean;
  json?: boolean;
}

export function registerRun(program: Command, state: ProgramState, io: CommandIo): void {
  addLogOptions(program.command('run'))
    .summary('extract, land, normalise and load now, in this process (Redis not needed)')
    .description(
      'Runs one sync of every configured account (or those named with --account; --brand alone picks the ' +
        'account that owns the workspace) inline: calls every endpoint within the account rate limit, lands ' +
        'each response under raw/, and writes the run manifest last (--once is optional: run always runs now). ' +
        'A run of an earlier run --once that ' +
        'stopped before its manifest (process killed) is completed first, under its own id, once its lease ' +
        'shows its owner gone (expired after jobs.lockSeconds, or its process no longer on this machine); a run ' +
        'still working, or one of the queue, is left alone. With redis.url ' +
        'set, requests count against the account budget the workers share (Redis must then be reachable). ' +
        'Exit code: 0 every workspace succeeded, 2 partial (some workspaces or table loads failed, the rest ' +
        'landed; one line each on stderr), 1 failed (for example a revoked key, or nothing could be written), ' +
        '64 a usage error (unknown option, bad value), 78 a config error (bad or missing config, bad key). ' +
        'On a terminal (pretty logs) a progress bar per account shows workspaces done, requests, time waited ' +
        'on the rate budget and an estimate of the time left.',
    )
    .option('--once', 'run inline now, in this process (the default: `run` always does; kept for scripts)')
    .option('--account <name>', 'only this account (repeatable)', collect)
    .option('--brand <id>', 'only this workspace id (repeatable)', collect)
    .option(
      '--endpoints <list>',
      `workspace endpoints, comma-separated (default all: ${WORKSPACE_ENDPOINTS.join(',')})`,
      parseEndpoints,
    )
    .option(
      '--days <n>',
      "visibility history window in days, 1-365 (default: every day since the account's last succeeded run plus extract.overlapDays, at least extract.visibilityDays; --plan shows it)",
      parseDays,
    )
    .option(
      '--plan',
      'print the calls the run would make per account and the least time the rate limit allows; calls nothing, writes nothing',
    )
    .option(
      '--json',
      'print one JSON document on stdout (the runs, their workspaces, loads and files, the exit code; with --plan: the plan); logs stay on stderr',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  visync run\n  visync run --json --log-level warn   (one JSON document on stdout)\n  visync run --account acme --days 30\n  visync run --brand brd_123 --endpoints visibility,prompts\n  visync run --plan                  (what a run would call, and how long at least)\n  visync run --plan --account acme --json',
    )
    .action(exitWith(state, (flags: RunOnceFlags, cmd: Command) => runCommand(flags, cmd, io)));
}

/** What a run loads, when it runs (not for --help or --plan): the modules' exports as one. */
async function runModules() {
  const [
    pools,
    pauseCap,
    rateBudget,
    configFile,
    brandOwner,
    crashPoints,
    runInline,
    warehouse,
    manifest,
    runState,
    createStore,
    commandLogger,
    progress,
    accounts,
  ] = await Promise.all([
    import('../api/http-pools.js'),
    import('../api/pause-cap.js'),
    import('../api/rate-budget.js'),
    import('../config/read-config.js'),
    import('../run/brand-owner.js'),
    import('../run/inline/crash-points.js'),
    import('../run/inline/run-inline.js'),
    import('../run/warehouse.js'),
    import('../records/manifest.js'),
    import('../records/run-state.js'),
    import('../sinks/create-store.js'),
    import('./command-logger.js'),
    import('./progress.js'),
    import('./accounts.js'),
  ]);
  return {
    ...pools,
    ...pauseCap,
    ...rateBudget,
    ...configFile,
    ...brandOwner,
    ...crashPoints,
    ...runInline,
    ...warehouse,
    ...manifest,
    ...runState,
    ...createStore,
    ...commandLogger,
    ...progress,
    ...accounts,
  };
}

/** `visync run`: one inline run of the chosen accounts (or, with --plan, what it would call). */
async function runCommand(flags: RunOnceFlags, cmd: Command, io: CommandIo): Promise<number> {
  if (flags.plan) return printPlan(flags, cmd, io);
  const {
    closePools,
    maxPauseMs,
    MemoryRateBudget,
    readConfig,
    routeBrands,
    crashHooks,
    runInline,
    selectAccounts,
    RunLoaders,
    manifestLocation,
    exitCodeFor,
    ObjectStores,
    commandLogger,
    logFormat,
    RunProgress,
    wantsProgress,
    chosenAccounts,
  } = await runModules();
  const config = readConfig(configOption(cmd));
  const progress = wantsProgress(logFormat(flags)) ? new RunProgress() : undefined;
  const logger = commandLogger(flags, progress?.logStream);
  // One store and one loader per distinct sinks: accounts may have their own prefix or dataset.
  let onLoaded: ((load: LoadResult) => void) | undefined;
  const stores = new ObjectStores((store) => {
    const hooks = crashHooks(store);
    onLoaded ??= hooks.onLoaded;
    return hooks.store;
  });
  const loaders = new RunLoaders();
  const sinksFor = async (account: AccountConfig) => ({
    store: await stores.forAccount(config, account),
    loader: await loaders.forAccount(config, account),
  });
  const cap = { maxPauseMs: maxPauseMs(config) };
  const shared = await sharedWithWorkers(config, cap);
  try {
    const chosen = chosenAccounts(config, flags.account).map((a) => a.name);
    // Before any call: a store a newer release wrote is not written (exit 78).
    await (await import('./claim-stores.js')).claimStores(stores, config, chosen);
    const budget = shared?.budget ?? new MemoryRateBudget(cap);
    // --brand alone runs the account that owns the workspace, not every account.
    const brandsByAccount =
      flags.brand?.length && !flags.account?.length
        ? await routeBrands({ accounts: selectAccounts(config), brands: flags.brand, budget, logger })
        : undefined;
    const result = await runInline({
      config,
      sinksFor,
      logger,
      budget,
      latestLock: shared?.latestLock,
      recorder: shared?.recorder,
      leaseSignal: shared?.leaseSignal,
      onLoaded: (load) => onLoaded?.(load),
      brandsByAccount,
      accounts: flags.account,
      brands: flags.brand,
      endpoints: flags.endpoints,
      days: flags.days,
      onProgress: progress?.update,
    });
    progress?.stop();
    const manifestAt = async (m: Manifest) =>
      manifestLocation(await stores.forAccount(config, m.account), m.account, m.run_id);
    const code = exitCodeFor(result.status);
    await printRun(result, code, manifestAt, flags, io);
    return code;
  } catch (err) {
    throw await asCliError(err);
  } finally {
    progress?.stop();
    await shared?.close();
    await stores.close();
    await closePools(config.accounts.map((a) => new URL(a.baseUrl).origin));
  }
}

/** The run's lines, or with --json its one document; then the runs' problems on stderr. */
async function printRun(
  result: InlineRunResult,
  code: number,
  manifestAt: (m: Manifest) => Promise<string>,
  flags: RunOnceFlags,
  io: CommandIo,
): Promise<void> {
  if (flags.json) {
    const { exitFields, runResult } = await import('./json-result.js');
    const recorded = async (m: Manifest) => (result.unrecorded.has(m.run_id) ? null : await manifestAt(m));
    const results = async (ms: Manifest[]) =>
      Promise.all(ms.map(async (m) => runResult(m, await recorded(m), problemLines(m))));
    io.verbatim(
      JSON.stringify(
        {
          status: result.status,
          ...exitFields(code),
          runs: await results(result.manifests),
          completed_interrupted_runs: await results(result.completed),
        },
        null,
        2,
      ),
    );
  } else {
    for (const m of result.completed)
      io.out(summaryLine(m, await manifestAt(m), 'completed interrupted run: '));
    for (const m of result.manifests)
      io.out(summaryLine(m, result.unrecorded.has(m.run_id) ? undefined : await manifestAt(m)));
  }
  for (const m of result.manifests) for (const line of problemLines(m)) io.err(`visync: ${line}`);
}

/** `--plan`: the config and the manifests in the sink are read; no API, Redis or warehouse is touched. */
async function printPlan(flags: RunOnceFlags, cmd: Command, io: CommandIo): Promise<number> {
  const [{ readConfigWithoutKeys }, { planRun }, { ObjectStores }, { renderPlan }, { chosenAccounts }] =
    await Promise.all([
      import('../config/read-config.js'),
      import('../run/plan-run.js'),
      import('../sinks/create-store.js'),
      import('./run-plan.js'),
      import('./accounts.js'),
    ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  const stores = new ObjectStores();
  const options = {
    config,
    brands: flags.brand,
    endpoints: flags.endpoints,
    days: flags.days,
  };
  try {
    chosenAccounts(config, flags.account);
    const groups = await accountsByStore(config, flags.account, stores);
    // planRun reads one store. Accounts in several (their own prefix or folder) are planned per
    // store, except for --brand alone, which picks the owning accounts across the whole config.
    const plan =
      groups.length > 1 && !(flags.brand?.length && !flags.account?.length)
        ? await mergedPlans(groups.map((g) => planRun({ ...options, store: g.store, accounts: g.accounts })))
        : await planRun({
            ...options,
            store: groups.length === 1 ? groups[0]!.store : await stores.get(config.sinks),
            accounts: flags.account,
          });
    if (flags.json) io.verbatim(JSON.stringify(plan, null, 2));
    else for (const line of renderPlan(plan)) io.out(line);
    return 0;
  } catch (err) {
    throw await asCliError(err);
  } finally {
    await stores.close();
  }
}

/** One line for main() to print; an unknown --account is a usage error, kept as such. */
async function asCliError(err: unknown): Promise<Error> {
  const { UnknownAccountError } = await import('../config/account-settings.js');
  if (err instanceof CliError || err instanceof UnknownAccountError) return err;
  return new CliError((err as Error).message);
}

/** The named (or all) accounts grouped by the store holding their manifests. */
async function accountsByStore(
  config: Config,
  names: readonly string[] | undefined,
  stores: ObjectStores,
): Promise<{ store: ObjectStore; accounts: string[] }[]> {
  const groups = new Map<ObjectStore, string[]>();
  for (const a of config.accounts) {
    if (names?.length && !names.includes(a.name)) continue;
    const store = await stores.forAccount(config, a);
    groups.set(store, [...(groups.get(store) ?? []), a.name]);
  }
  return [...groups].map(([store, accounts]) => ({ store, accounts }));
}

async function mergedPlans(plans: Promise<RunPlan>[]): Promise<RunPlan> {
  const all = await Promise.all(plans);
  return {
    run_date: all[0]!.run_date,
    accounts: all.flatMap((p) => p.accounts),
    notes: [...new Set(all.flatMap((p) => p.notes))],
  };
}

/**
 * With redis.url configured, run --once draws from the account's budget in Redis (shared with
 * running workers), locks latest/ bundles there and records its runs in the run ledger. A Redis that cannot be reached stops the command
 * in one line (within seconds) rather than letting it exceed the limit the workers keep.
 */
async function sharedWithWorkers(
  config: Config,
  cap: BudgetOptions,
): Promise<
  | {
      budget: RateBudget;
      latestLock: KeyLock;
      recorder: RunRecorder;
      leaseSignal: LeaseSignal;
      close(): Promise<void>;
    }
  | undefined
> {
  if (!config.redis.url) return undefined;
  // ioredis is loaded only here: a run --once without redis.url never needs it.
  const [
    { closeConnection, commandConnection },
    { RedisKeyLock },
    { RedisRateBudget },
    { RunLedger },
    { LedgerRecorder },
    { RedisLeaseSignal },
  ] = await Promise.all([
    import('../../jobs/connection.js'),
    import('../../jobs/redis-key-lock.js'),
    import('../../jobs/redis-rate-budget.js'),
    import('../../jobs/ledger.js'),
    import('../../jobs/ledger-recorder.js'),
    import('../../jobs/redis-run-lease.js'),
  ]);
  const link = commandConnection(config.redis.url, config.redis.cluster === true);
  try {
    await link.redis.ping();
  } catch (err) {
    link.redis.disconnect();
    const unreachable = link.unreachable(err);
    throw new CliError(
      `${unreachable?.message ?? `Redis at ${link.address}: ${(err as Error).message}`}; run --once shares the account budget through it (remove redis.url to run without it)`,
    );
  }
  const prefix = config.redis.prefix;
  return {
    budget: new RedisRateBudget(link.redis, { prefix, ...cap }),
    latestLock: new RedisKeyLock(link.redis, prefix),
    // Its runs then show in `visync status` and count for the nightly window like the workers' runs.
    recorder: new LedgerRecorder(new RunLedger(link.redis, prefix)),
    // A run's lease lives there too: a run --once on another machine sees this one at work.
    leaseSignal: new RedisLeaseSignal(link.redis, prefix),
    close: () => closeConnection(link.redis),
  };
}
