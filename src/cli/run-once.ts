import { type Command, Option } from 'commander';
import { WORKSPACE_ENDPOINTS, type WorkspaceEndpoint } from '../api/endpoints.js';
import { closeAllPools } from '../api/http-pools.js';
import { loadConfig } from '../config/load.js';
import { createLogger, registerSecret } from '../log.js';
import { runInline } from '../pipeline/run-inline.js';
import { createRunLoader } from '../pipeline/run-loader.js';
import { exitCodeFor, type Manifest } from '../runs/manifest.js';
import { createObjectStore } from '../sinks/create-store.js';
import { manifestKey } from '../sinks/layout.js';
import { collect, parseDays, parseEndpoints } from './options.js';
import { CliError, type CliIo, configOption, exitWith, type ProgramState } from './program-state.js';

export interface RunOnceFlags {
  once?: boolean;
  account?: string[];
  brand?: string[];
  endpoints?: WorkspaceEndpoint[];
  days?: number;
  logLevel?: string;
}

export function registerRun(program: Command, state: ProgramState, io: CliIo): void {
  program
    .command('run')
    .summary('extract, land, normalise and load now, in this process (no Redis)')
    .description(
      'Runs one sync of every configured account (or those named with --account) inline: calls every\n' +
        'endpoint within the account rate limit, lands each response under raw/, and writes the run manifest\n' +
        'last. Exit code: 0 every workspace succeeded, 2 partial (some workspaces failed, the rest landed),\n' +
        '1 failed (for example a revoked key or a plan without API access).',
    )
    .requiredOption('--once', 'run inline now instead of through the job queue (required)')
    .option('--account <name>', 'only this account (repeatable)', collect)
    .option('--brand <id>', 'only this workspace id (repeatable)', collect)
    .option(
      '--endpoints <list>',
      `workspace endpoints, comma-separated (default all: ${WORKSPACE_ENDPOINTS.join(',')})`,
      parseEndpoints,
    )
    .option(
      '--days <n>',
      'visibility history window in days, 1-365 (default extract.visibilityDays)',
      parseDays,
    )
    .addOption(
      new Option('--log-level <level>', 'log level of the JSON logs on stderr')
        .choices(['debug', 'info', 'warn', 'error', 'silent'])
        .default('info'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  visync run --once\n  visync run --once --account acme --days 30\n  visync run --once --brand brd_123 --endpoints visibility,prompts',
    )
    .action(
      exitWith(state, async (flags: RunOnceFlags, cmd: Command) => {
        const config = loadConfig(configOption(cmd));
        for (const a of config.accounts) registerSecret(a.apiKey);
        const logger = createLogger({ ...(flags.logLevel ? { level: flags.logLevel } : {}) });
        const store = createObjectStore(config.sinks);
        const loader = createRunLoader(config.sinks);
        try {
          const result = await runInline({
            config,
            store,
            logger,
            ...(loader ? { loader } : {}),
            ...(flags.account ? { accounts: flags.account } : {}),
            ...(flags.brand ? { brands: flags.brand } : {}),
            ...(flags.endpoints ? { endpoints: flags.endpoints } : {}),
            ...(flags.days ? { days: flags.days } : {}),
          });
          for (const m of result.manifests) io.out(summaryLine(m, store.location));
          for (const m of result.manifests) {
            if (m.error) io.err(`visync: ${m.error}`);
            for (const l of m.loads)
              if (l.status === 'failed')
                io.err(`visync: ${m.account}: load of ${l.table} failed: ${l.error}`);
          }
          return exitCodeFor(result.status);
        } catch (err) {
          throw new CliError((err as Error).message);
        } finally {
          await closeAllPools();
        }
      }),
    );
}

export function summaryLine(m: Manifest, location: string): string {
  const ok = m.workspaces.filter((w) => w.status === 'succeeded').length;
  return [
    `${m.account}: ${m.status}`,
    `run ${m.run_id}`,
    `${ok}/${m.workspaces.length} workspaces`,
    `${m.requests.calls} requests (${m.requests.rate_limited} rate-limited, ${m.requests.retries} retries)`,
    `${m.files.length} files`,
    `manifest ${location.replace(/\/$/, '')}/${manifestKey(m.account, m.run_id)}`,
  ].join(' | ');
}
