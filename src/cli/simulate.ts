// `visync simulate`: serves the upstream simulator on loopback so the pipeline, the demo and
// benchmarks can run end to end without a real account or network.
import { readFileSync, writeFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  DEFAULT_LIMIT,
  type FaultRule,
  requestLogNdjson,
  SHAPES,
  type Shape,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
  validateDataChange,
  validateFaultRule,
} from '../simulator/index.js';
import { errorMessage } from '../util/errors.js';
import { EXIT_CONFIG, EXIT_USAGE } from './exit-codes.js';
import { CliError } from './program-state.js';

export interface SimulateFlags {
  port: number;
  host: string;
  seed?: number;
  accounts?: number;
  workspaces?: number;
  keys?: number;
  limit: number;
  windowMs: number;
  latencyMs?: number | { min: number; max: number };
  retryAfter: 'seconds' | 'http-date';
  plan?: string;
  faults?: string;
  changes?: string;
  shape?: Shape;
  today?: string;
  /** Environment variable holding the key of the first account (docker-compose shares it with workers). */
  keyFromEnv?: string;
  /** On stop, write every request the simulator saw here as NDJSON (benchmarks read it back). */
  requestLog?: string;
}

export interface SimulateDeps {
  /** Receives each output line; default stdout. */
  out?: (line: string) => void;
  /** Stops the simulator like SIGINT does; lets tests end the command. */
  signal?: AbortSignal;
  /** Called once the simulator listens, with the running instance. */
  onReady?: (sim: Simulator) => void;
}

const DEFAULT_SIM_PORT = 8787;

function integer(min: number, what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected ${what}, a whole number >= ${min}`);
    }
    return n;
  };
}

function parseLatency(value: string): number | { min: number; max: number } {
  const m = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected milliseconds, as 50 or as a range 20-80');
  const min = Number(m[1]);
  if (m[2] === undefined) return min;
  const max = Number(m[2]);
  if (max < min) throw new InvalidArgumentError('the range must be MIN-MAX with MIN <= MAX');
  return { min, max };
}

/** Reads a JSON array file given to `flag`, each entry checked by `validate` (which names it). */
function readJsonList<T>(
  flag: string,
  path: string,
  what: string,
  validate: (v: unknown, where: string) => T,
): T[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`${flag} ${path}: ${errorMessage(err)}`, EXIT_USAGE);
  }
  if (!Array.isArray(parsed))
    throw new CliError(`${flag} ${path}: expected a JSON array of ${what}s`, EXIT_USAGE);
  try {
    return parsed.map((entry, i) => validate(entry, `${flag} ${path}: ${what} ${i}`));
  } catch (err) {
    throw new CliError(errorMessage(err), EXIT_USAGE);
  }
}

/** Reads a --faults file: a JSON array of FaultRule; "times": "Infinity" means every match. */
function readFaultsFile(path: string): FaultRule[] {
  return readJsonList('--faults', path, 'fault rule', validateFaultRule);
}

/** Account names for --accounts N: a single `demo`, or demo-1..demo-N. */
function simulatedAccountNames(count: number): string[] {
  return count === 1 ? ['demo'] : Array.from({ length: count }, (_, i) => `demo-${i + 1}`);
}

export function simulatorOptionsFromFlags(flags: SimulateFlags): SimulatorOptions {
  const names = simulatedAccountNames(flags.accounts ?? 1);
  return {
    host: flags.host,
    port: flags.port,
    seed: flags.seed ?? 1,
    accounts: names.map((name, i) => ({
      name,
      ...(flags.plan ? { plan: flags.plan } : {}),
      ...(i === 0 && flags.keyFromEnv ? { keys: [keyFromEnv(flags.keyFromEnv)] } : {}),
    })),
    workspacesPerAccount: flags.workspaces ?? 5,
    keysPerAccount: flags.keys ?? 1,
    limit: { requests: flags.limit, windowMs: flags.windowMs },
    retryAfterFormat: flags.retryAfter,
    latencyMs: flags.latencyMs,
    ...(flags.faults ? { faults: readFaultsFile(flags.faults) } : {}),
    ...(flags.changes
      ? { changes: readJsonList('--changes', flags.changes, 'change', validateDataChange) }
      : {}),
    ...(flags.today ? { today: flags.today } : {}),
    ...(flags.shape ? { shape: flags.shape } : {}),
  };
}

function keyFromEnv(name: string): string {
  const key = process.env[name];
  if (!key)
    throw new CliError(`simulate: --key-from-env ${name}: the environment variable is not set`, EXIT_CONFIG);
  return key;
}

function apiKeyEnvName(account: string): string {
  return `SIM_${account.toUpperCase().replaceAll('-', '_')}_API_KEY`;
}

/** What the command prints on start: where it listens, the accounts, and config to paste. */
function startupBanner(sim: Simulator, flags: Pick<SimulateFlags, 'limit' | 'windowMs'>): string[] {
  const lines = [
    `visync simulator listening on ${sim.url}`,
    `rate limit: ${flags.limit} requests per ${flags.windowMs} ms per account (all keys together)`,
    '',
  ];
  for (const account of sim.accounts) {
    lines.push(`account ${account.name}: plan ${account.plan}, ${account.workspaceIds.length} workspaces`);
    account.keys.forEach((key, i) => {
      lines.push(`  key ${i}: ${key}`);
    });
  }
  lines.push('', '# These are fake simulator keys. In your shell:');
  for (const account of sim.accounts) {
    lines.push(`export ${apiKeyEnvName(account.name)}=${account.keys[0] ?? ''}`);
  }
  lines.push('', '# In your visync config (e.g. config/visync.yaml):', 'accounts:');
  for (const account of sim.accounts) {
    lines.push(
      `  - name: ${account.name}`,
      `    apiKey: \${${apiKeyEnvName(account.name)}}`,
      `    baseUrl: ${sim.url}`,
      '    brands: all',
    );
    if (flags.windowMs === 60_000) lines.push(`    requestsPerMinute: ${flags.limit}`);
  }
  lines.push('', 'Press Ctrl-C to stop.');
  return lines;
}

/** The action of `visync simulate`: starts, prints, serves until SIGINT/SIGTERM (or `signal`), closes. */
export async function runSimulate(flags: SimulateFlags, deps: SimulateDeps = {}): Promise<void> {
  const out = deps.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  let sim: Simulator;
  try {
    sim = await startSimulator(simulatorOptionsFromFlags(flags));
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`simulate: ${errorMessage(err)}`);
  }
  for (const line of startupBanner(sim, flags)) out(line);
  deps.onReady?.(sim);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      deps.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (deps.signal?.aborted) stop();
    else deps.signal?.addEventListener('abort', stop, { once: true });
  });
  await sim.close();
  if (flags.requestLog) {
    writeFileSync(flags.requestLog, requestLogNdjson(sim.log));
    out(`request log: ${sim.log.length} requests written to ${flags.requestLog}`);
  }
  out('simulator stopped');
}

/** The simulator's options: port, data, limits, latency, faults, scripted changes and shapes. */
function withSimulateOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--port <port>', 'port to listen on (0 = any free port)')
        .default(DEFAULT_SIM_PORT)
        .argParser(integer(0, 'a port')),
    )
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--seed <n>', 'seed of the generated data, keys and ids (default 1)', integer(0, 'a seed'))
    .option(
      '--accounts <n>',
      'number of accounts: one is named demo, several demo-1..demo-N (default 1)',
      integer(1, 'a count'),
    )
    .option('--workspaces <n>', 'workspaces per account (default 5)', integer(0, 'a count'))
    .option('--keys <n>', 'API keys per account (default 1)', integer(1, 'a count'))
    .addOption(
      new Option('--limit <n>', 'requests per window per account, across all its keys')
        .default(DEFAULT_LIMIT.requests)
        .argParser(integer(1, 'a request count')),
    )
    .addOption(
      new Option(
        '--window-ms <ms>',
        'length of the sliding rate-limit window; shrink it to compress a minute',
      )
        .default(DEFAULT_LIMIT.windowMs)
        .argParser(integer(1, 'milliseconds')),
    )
    .option('--latency-ms <ms>', 'delay before each response: 50, or a range such as 20-80', parseLatency)
    .addOption(
      new Option('--retry-after <format>', 'how a 429 states Retry-After')
        .choices(['seconds', 'http-date'])
        .default('seconds'),
    )
    .option('--plan <plan>', 'plan of every account (default agency; starter shows the 403 path)')
    .option(
      '--key-from-env <name>',
      'use the key in this environment variable for the first account (instead of a generated one)',
    )
    .option(
      '--request-log <file>',
      'on stop, write every request received (arrival time, account, endpoint, status; no keys) to this file as NDJSON',
    )
    .option('--today <date>', "the simulator's today, YYYY-MM-DD (default: the current UTC date)")
    .option(
      '--faults <file.json>',
      'JSON array of fault rules: {account?, endpoint?, brandId?, after?, times?, kind, status?, retryAfter?, delayMs?, chunkBytes?, bytes?, fields?, records?}',
    )
    .option(
      '--changes <file.json>',
      'JSON array of scripted data changes: {kind, account, workspace, engine?, points?, claim?, competitor?} (docs/simulator.md)',
    )
    .addOption(
      new Option(
        '--shape <shape>',
        'record shapes served: assumed (default), alternative (other field names and nesting the client recognises), unknown (reputation claims and buyer-intent losses it does not) (docs/simulator.md)',
      ).choices([...SHAPES]),
    );
}

/** After the options in `visync simulate --help`: the fault kinds and examples. */
const SIMULATE_HELP = [
  '',
  'Fault kinds: status (e.g. 503, or 429 with retryAfter), reset, slow-body (the body in chunks of',
  'chunkBytes, default a quarter of it, delayMs apart, default 200; chunkBytes 1 trickles),',
  'huge-body (a valid JSON body of `bytes`, default 200 MiB), malformed-json, wrong-content-type,',
  'extra-fields, missing-fields, short-list (a list keeps `records` of its records, default half,',
  'its count still the full number), echo-key (the caller\'s API key in the body, under "key").',
  'A rule skips its first `after` matching requests, then applies',
  'to `times` of them (default 1; "Infinity" for every one).',
  '',
  'Examples:',
  '  visync simulate',
  '  visync simulate --accounts 2 --workspaces 1000 --keys 2',
  '  visync simulate --limit 120 --window-ms 1000      # a benchmark minute lasts one second',
  '  visync simulate --plan starter                    # every key gets 403',
  '  echo \'[{"endpoint":"visibility","kind":"status","status":503,"times":2}]\' > faults.json',
  '  visync simulate --faults faults.json --latency-ms 20-80',
].join('\n');

export function registerSimulate(program: Command): void {
  withSimulateOptions(
    program
      .command('simulate')
      .summary('serve a local simulator of the upstream visibility API')
      .description(
        [
          'Serves a faithful simulator of the read-only visibility API on loopback, so you can try visync, ' +
            'run the demo, tests and benchmarks without a real account.',
          'It answers every endpoint under /api/v1 with deterministic data (same --seed, same bytes) and ' +
            'behaves like the real service: bearer API keys (401 for unknown or revoked keys), plans (403 ' +
            'unless agency or concierge), workspace ownership (404 for a foreign workspace), parameter ranges ' +
            '(400), and the per-account request limit shared by all keys of an account (429 with Retry-After). ' +
            'Shapes the spec does not show are assumptions, listed at the top of src/simulator/data.ts.',
          'On start it prints the base URL, each account with its fake API keys, and a config snippet to ' +
            'paste; it serves until Ctrl-C (SIGINT) or SIGTERM.',
        ].join('\n\n'),
      ),
  )
    .addHelpText('after', SIMULATE_HELP)
    .action(async (flags: SimulateFlags) => {
      await runSimulate(flags);
    });
}
