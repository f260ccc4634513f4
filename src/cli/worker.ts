import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { Logger } from 'pino';
import type { OpsServer } from '../../jobs/ops-server.js';
import type { ConfigWithOrigins } from '../config/read-config.js';
import type { Config } from '../config/schema.js';
import type { ConfigWatcher } from '../config/watch.js';
import type { WorkerHandle } from '../run/queued/worker.js';
import { EXIT_CONFIG } from './exit-codes.js';
import { addLogOptions, type LogFlags } from './log-options.js';
import { CliError, type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

export function registerWorker(program: Command, state: ProgramState, io: CommandIo): void {
  addLogOptions(program.command('worker'))
    .summary('work the job queue: nightly schedules, enqueued syncs and backfills')
    .description(
      'Starts BullMQ workers on the queue in redis.url and installs one nightly schedule per configured ' +
        'account (schedule.nightly cron and time zone); accounts removed from the config lose theirs. ' +
        'Installing a schedule never starts a run. Run as many workers as you like, on as many machines: ' +
        'they share the work and one request budget per account. Prints one line when ready. ' +
        'While Redis is unreachable it retries (1 s, doubling up to 30 s), logging one line per attempt, ' +
        'and takes jobs again once Redis is back. ' +
        'SIGTERM/SIGINT: takes no new job, lets active jobs finish for shutdownGraceSeconds, hands the ' +
        'rest back to the queue, exits 0.',
    )
    .option(
      '--concurrency <n>',
      'jobs this process works on at once per queue (accounts share 4 queues by a hash of their name: up to 4 x n jobs; ' +
        'each job fetches its few workspaces at once)',
      positiveInt,
      2,
    )
    .option(
      '--listen <host:port>',
      'address of /metrics, /healthz, /readyz, /ui/ (queue board) and /review/ (drafts to approve and send), or off (default: worker.listen)',
    )
    .action(
      exitWith(state, (flags: { concurrency: number; listen?: string } & LogFlags, cmd: Command) =>
        workerCommand(flags, cmd, io),
      ),
    );
}

/** `visync worker`: works the job queue until stopped. */
async function workerCommand(
  flags: { concurrency: number; listen?: string } & LogFlags,
  cmd: Command,
  io: CommandIo,
): Promise<number> {
  // Loaded here, not at the top: `visync --help` and the other commands never load BullMQ.
  const [{ startWorker }, { WorkerStartAborted }, { readConfigDetailed }, { redactUrl }, { commandLogger }] =
    await Promise.all([
      import('../run/queued/worker.js'),
      import('../../jobs/start-guard.js'),
      import('../config/read-config.js'),
      import('../util/redact.js'),
      import('./command-logger.js'),
    ]);
  const loaded = readConfigDetailed(configOption(cmd));
  const { config } = loaded;
  const logger = commandLogger(flags);
  // Spool and batch folders that killed workers of this host left in the temporary folder.
  const { sweepStaleTempDirsOnce } = await import('../util/temp-dir.js');
  const removed = await sweepStaleTempDirsOnce();
  if (removed.length) logger.info({ folders: removed }, 'removed temporary folders of stopped processes');
  // Before any job or port: stores a newer release wrote are not written by this one (exit 78).
  await claimConfiguredStores(config);
  // Bound before the workers start: a taken port or missing credentials stop it before any job.
  const endpoint = await openEndpoint(flags.listen, config, logger);
  // Listening from the start: a stop while the worker still waits for Redis ends the wait.
  const stop = new AbortController();
  const signalled = untilSignalled(stop);
  let handle: WorkerHandle;
  try {
    handle = await startWorker({ config, logger, concurrency: flags.concurrency, signal: stop.signal });
  } catch (err) {
    await endpoint?.close();
    if (!(err instanceof WorkerStartAborted)) throw err;
    logger.info({ signal: await signalled }, 'stopped before Redis could be reached');
    return 0;
  }
  await endpoint?.attach(handle);
  // Watching starts before the ready line: a file written once a worker says it is ready is always
  // picked up.
  const watcher = await watchReloads(configOption(cmd), loaded, handle, logger);
  io.out(
    `visync worker ready: ${redactUrl(config.redis.url ?? '')} prefix ${config.redis.prefix}, concurrency ${flags.concurrency}, ` +
      `accounts ${config.accounts.map((a) => a.name).join(', ')}, nightly "${config.schedule.nightly.cron}" ${config.schedule.nightly.tz}, ` +
      `endpoint ${endpoint ? `${endpoint.url}/ (metrics, healthz, readyz, ui)` : 'off'}`,
  );
  const signal = await signalled;
  watcher.close();
  const graceMs = config.shutdownGraceSeconds * 1000;
  logger.info({ signal, grace_ms: graceMs }, 'stopping: no new jobs; waiting for active ones');
  const { forced } = await handle.close(graceMs);
  await endpoint?.close();
  logger.info({ forced }, forced ? 'stopped; unfinished jobs go back to the queue' : 'stopped');
  return 0;
}

/** Claims every configured account's store for this release (src/sinks/store-marker.ts). */
async function claimConfiguredStores(config: Config): Promise<void> {
  const [{ ObjectStores }, { claimStores }] = await Promise.all([
    import('../sinks/create-store.js'),
    import('./claim-stores.js'),
  ]);
  const stores = new ObjectStores();
  try {
    await claimStores(
      stores,
      config,
      config.accounts.map((a) => a.name),
    );
  } finally {
    await stores.close();
  }
}

/**
 * The worker's HTTP endpoint on --listen, else worker.listen. A second worker on the same machine
 * finds the default port taken: it works on without an endpoint and says so. An address the user
 * chose must be served, or the worker stops.
 */
async function openEndpoint(
  flagListen: string | undefined,
  config: Config,
  logger: Logger,
): Promise<OpsServer | undefined> {
  const { EndpointError, startWorkerEndpoint } = await import('../../jobs/ops-server.js');
  const { DEFAULT_LISTEN } = await import('../config/schema.js');
  const listen = flagListen ?? config.worker.listen;
  const defaulted = flagListen === undefined && listen === DEFAULT_LISTEN;
  return startWorkerEndpoint(listen, {
    readOnly: config.worker.ui.readOnly,
    logger,
  }).catch((err: unknown) => {
    if (err instanceof EndpointError && err.inUse && defaulted) {
      logger.warn(`${err.message}; this worker runs without its endpoint`);
      return undefined;
    }
    // A taken address is this machine's state; a bad address or missing credentials are config.
    if (err instanceof EndpointError) throw new CliError(err.message, err.inUse ? 1 : EXIT_CONFIG);
    throw err;
  });
}

/** The first SIGTERM or SIGINT, which also aborts `stop`. */
function untilSignalled(stop: AbortController): Promise<string> {
  return new Promise<string>((resolve) => {
    const on = (signal: string) => () => {
      stop.abort();
      resolve(signal);
    };
    process.once('SIGTERM', on('SIGTERM'));
    process.once('SIGINT', on('SIGINT'));
  });
}

/**
 * Accounts added, removed or changed in the config (or its accountsFrom source) take effect
 * without a restart; an invalid edit is logged and the config in force stays.
 */
async function watchReloads(
  path: string | undefined,
  loaded: ConfigWithOrigins,
  handle: WorkerHandle,
  logger: Logger,
): Promise<ConfigWatcher> {
  const { config } = loaded;
  const [{ watchConfig }, { recordReloadFailure }, { metrics }] = await Promise.all([
    import('../config/watch.js'),
    import('../../jobs/config-reload.js'),
    import('../metrics/recorder.js'),
  ]);
  const watcher = watchConfig(
    path,
    async (next) => {
      const { removed } = await handle.reconfigure(next);
      if (removed.length) logger.info({ removed }, 'removed schedules of accounts no longer configured');
    },
    {
      current: loaded,
      logger,
      onReloadFailure: async (reason) => {
        metrics.configReloadFailed(reason !== undefined);
        await recordReloadFailure(handle.context.redis, config.redis.prefix, reason);
      },
    },
  );
  // Started with a valid config: an earlier worker's failed reload is over.
  await recordReloadFailure(handle.context.redis, config.redis.prefix, undefined).catch(() => {});
  return watcher;
}
