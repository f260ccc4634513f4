// `visync export dbt|athena|duckdb`: schema files for the engines data engineers already use, all
// generated from the table catalogue (src/catalogue) and the config. Calls no API and reads no rows
// (`duckdb` lists the store to know which tables have files yet):
// each subcommand loads the config and one generator.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Config, SinksConfig } from '../config/schema.js';
import type { RootReader } from '../export/store-root.js';
import { hasControlCharacter, terminalSafe } from '../util/terminal.js';
import { EXIT_USAGE } from './exit-codes.js';
import { CliError, type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';

interface OutFlags {
  out?: string;
  account?: string;
}

const ACCOUNT_OPTION = [
  '--account <name>',
  "describe this account's dataset, prefix or folder (needed when accounts have their own)",
] as const;

export function registerExport(program: Command, state: ProgramState, io: CommandIo): void {
  const exp = program
    .command('export')
    .summary('write a dbt project, Athena DDL or DuckDB views for the synced tables')
    .description(
      'Writes the schema of every synced table, from the table catalogue (docs/tables.md) and the config, ' +
        'for the engine you read the data with: `dbt` (a dbt project: sources with data tests and freshness, ' +
        'staging models of the current state; BigQuery, DuckDB or Athena), `athena` (CREATE EXTERNAL TABLE over the S3 layout, partition ' +
        'projection, no MSCK REPAIR) or `duckdb` (views over the local folder or S3). Reads no data and ' +
        'calls no API. Without --out the result goes to stdout (dbt: into ./visync_dbt).',
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  visync export dbt --out visync_dbt && cd visync_dbt && dbt build --profiles-dir .',
        '  visync export athena --root s3://analytics/visync/ --split athena/',
        '  visync export duckdb --root ./data > views.sql && duckdb visync.duckdb < views.sql',
      ].join('\n'),
    );
  registerDbt(exp, state, io);
  registerAthena(exp, state, io);
  registerDuckdb(exp, state, io);
}

/** A subcommand with the options every export takes: --out and --account. */
function exportCommand(
  exp: Command,
  name: string,
  text: { summary: string; description: string; help: string },
): Command {
  return exp
    .command(name)
    .summary(text.summary)
    .description(text.description)
    .option('--out <path>', 'write to this file instead of stdout')
    .option(...ACCOUNT_OPTION)
    .addHelpText('after', text.help);
}

function registerDbt(exp: Command, state: ProgramState, io: CommandIo): void {
  exp
    .command('dbt')
    .summary('a dbt project over the synced tables: sources, staging models of the current state, data tests')
    .description(
      'Writes a dbt project into --out (default ./visync_dbt): dbt_project.yml, an example profiles.yml for ' +
        "the target's adapter, models/sources.yml (every table and column with descriptions, types, data " +
        'tests and freshness), one staging model per table giving its current state (stg_{table}), the ' +
        'change views as models, and the generic test they use. Targets: bigquery (the dataset of ' +
        'sinks.bigquery; the default when it is configured), duckdb (the object store read with ' +
        'read_json: --root or the configured fs folder or S3 prefix; the default otherwise), athena ' +
        '(the tables of `visync export athena`, in the Glue database --database).',
    )
    .addOption(
      new Option(
        '--target <engine>',
        'the engine dbt runs on (default: bigquery with sinks.bigquery, else duckdb)',
      ).choices(DBT_TARGET_CHOICES),
    )
    .option(
      '--out <dir>',
      'the project folder (made if missing; its generated files are replaced)',
      'visync_dbt',
    )
    .option('--root <path|s3url>', 'duckdb: the object store root (default: the configured sink)', parseRoot)
    .option('--list', 'duckdb: also list an S3 store (the configured sinks.s3) for tables with no files yet')
    .option(
      '--database <name>',
      'athena: the Glue database holding the visync tables',
      parseDatabase,
      'visync',
    )
    .option(...ACCOUNT_OPTION)
    .addHelpText(
      'after',
      '\nExamples:\n  visync export dbt --out visync_dbt\n  cd visync_dbt && dbt build --profiles-dir .\n' +
        '  visync export dbt --target athena --database visync --out visync_dbt',
    )
    .action(exitWith(state, (flags: DbtFlags, cmd: Command) => exportDbt(io, flags, cmd)));
}

const DBT_TARGET_CHOICES = ['bigquery', 'duckdb', 'athena'];

interface DbtFlags {
  target?: 'bigquery' | 'duckdb' | 'athena';
  out: string;
  root?: string;
  list?: boolean;
  database: string;
  account?: string;
}

async function exportDbt(io: CommandIo, flags: DbtFlags, cmd: Command): Promise<number> {
  // 0.1.0's usage (one sources.yml to --out or stdout) is refused before the config is read.
  const { oldUsage } = await import('./dbt-out.js');
  const refusal = oldUsage(flags.out, cmd.getOptionValueSource('out') !== 'default', io.outIsFile?.());
  if (refusal) throw new CliError(refusal, EXIT_USAGE);
  const config = await configOf(cmd);
  const [{ resolve, relative, isAbsolute }, catalogue, dbt, { s3Location }] = await Promise.all([
    import('node:path'),
    import('../catalogue/index.js'),
    import('../export/dbt/index.js'),
    import('../export/athena.js'),
  ]);
  const target = flags.target ?? (config.sinks.bigquery ? 'bigquery' : 'duckdb');
  const shared = target === 'bigquery' ? 'bigquery' : target === 'duckdb' && !flags.root ? 'store' : 'none';
  const { sinks } = await exportScope(config, flags.account, shared);
  const bq = sinks.bigquery;
  if (target === 'bigquery' && !bq)
    throw new CliError(
      'no sinks.bigquery in the config: --target bigquery describes the BigQuery dataset visync loads (or use --target duckdb)',
    );
  const given = flags.root ?? defaultRoot(sinks, s3Location);
  // dbt runs from the project folder: a relative root stays relative, from there.
  const root =
    /^s3:\/\//.test(given) || isAbsolute(given) ? given : relative(resolve(flags.out), resolve(given)) || '.';
  if (target === 'duckdb') await refuseRoot(root, 'dbt-duckdb', flags.root);
  // The store is listed for DuckDB: a table without part files reads as empty (docs/dbt.md). S3
  // only with --list, as for `export duckdb`: that loads the S3 client and needs read access.
  const storeSinks: SinksConfig | undefined = !/^s3:\/\//.test(given)
    ? { fs: { dir: resolve(given) } }
    : flags.list && sinks.s3 && s3Location(sinks.s3.bucket, sinks.s3.prefix) === given
      ? { s3: sinks.s3 }
      : undefined;
  const withFiles =
    target === 'duckdb' && storeSinks
      ? await listedTables(storeSinks, catalogue.WAREHOUSE_TABLES)
      : undefined;
  const files = dbt.dbtProject({
    target,
    tables: catalogue.WAREHOUSE_TABLES,
    views: catalogue.currentStateViews(target, dbt.sourceRef),
    warnAfterHours: config.alerts?.staleAfterHours ?? dbt.DEFAULT_WARN_AFTER_HOURS,
    bigquery: bq && {
      project: bq.projectId,
      dataset: bq.dataset,
      location: bq.location,
      requirePartitionFilter: bq.requirePartitionFilter ?? false,
    },
    root,
    withFiles,
    athenaSchema: flags.database,
    region: sinks.s3?.region,
  });
  // Every file first into a fresh folder: a refusal or a full disk leaves no half project. The
  // record lists what was written: the next export removes what it no longer writes.
  const { mergeIntoFolder } = await import('../util/swap-in.js');
  await written(mergeIntoFolder(flags.out, files, { name: dbt.RECORD_FILE, header: dbt.RECORD_HEADER }));
  io.out(`wrote a dbt project for ${target} in ${flags.out} (${files.length} files):`);
  for (const f of files) io.out(`  ${f.path}`);
  io.out('next, in that folder:');
  for (const line of [`cd ${flags.out}`, ...dbt.nextCommands(target)]) io.out(`  ${line}`);
  return 0;
}

function registerAthena(exp: Command, state: ProgramState, io: CommandIo): void {
  exportCommand(exp, 'athena', {
    summary: 'Athena tables and current-state views over the S3 layout',
    description:
      'One CREATE EXTERNAL TABLE per table over s3://bucket/prefix/tables/{table}/ (default: sinks.s3), ' +
      'OpenX JSON SerDe with typed timestamps, partitioned by dt and account with partition projection ' +
      '(dt: dates; account: the configured accounts), then the `_latest` and change views in Trino SQL. ' +
      'Athena runs one statement per query: the statements are numbered in the order to run, one file ' +
      'each with --split DIR. The header of the output says how runs, timestamps and JSON read.',
    help: '\nExamples:\n  visync export athena --split athena/\n  visync export athena --root s3://analytics/visync/ --out visync-athena.sql',
  })
    .option(
      '--root <s3url>',
      'object store root (default: s3://{sinks.s3.bucket}/{sinks.s3.prefix})',
      parseS3Url,
    )
    .option('--location <s3url>', 'the same as --root', parseS3Url)
    .option('--split <dir>', 'write one file per statement into DIR, numbered in the order to run')
    .action(exitWith(state, (flags: AthenaFlags, cmd: Command) => exportAthena(io, flags, cmd)));
}

type AthenaFlags = OutFlags & { root?: string; location?: string; split?: string };

async function exportAthena(io: CommandIo, flags: AthenaFlags, cmd: Command): Promise<number> {
  const config = await configOf(cmd);
  const [{ WAREHOUSE_TABLES }, { athenaDdl, athenaFiles, isStatementFile, s3Location }] = await Promise.all([
    import('../catalogue/index.js'),
    import('../export/athena.js'),
  ]);
  const given = flags.root ?? flags.location;
  const scope = await exportScope(config, flags.account, given ? 'none' : 's3');
  const s3 = scope.sinks.s3;
  const location = given ?? (s3 ? s3Location(s3.bucket, s3.prefix) : undefined);
  if (!location)
    throw new CliError('no sinks.s3 in the config: give the S3 root with --root s3://bucket/prefix/');
  await refuseRoot(location, 'athena', given);
  const options = { tables: WAREHOUSE_TABLES, location, accounts: scope.accounts };
  if (flags.split) {
    if (flags.out) throw new CliError('give --out or --split, not both', EXIT_USAGE);
    const files = athenaFiles(options);
    // The folder becomes these files whole: no statement of an earlier export stays beside them.
    const { replaceFolder } = await import('../util/swap-in.js');
    const statements = files.map((f) => ({ path: f.file, text: f.sql }));
    await written(replaceFolder(flags.split, statements, isStatementFile));
    io.out(`wrote ${files.length} statements to ${flags.split} (run them in the order of their numbers)`);
    return 0;
  }
  const text = athenaDdl(options);
  return emit(
    io,
    flags.out,
    text,
    `${WAREHOUSE_TABLES.length} tables and their views, statement by statement`,
  );
}

function registerDuckdb(exp: Command, state: ProgramState, io: CommandIo): void {
  exportCommand(exp, 'duckdb', {
    summary: 'DuckDB views over the local folder or S3, with the current-state views',
    description:
      'One CREATE VIEW per table reading tables/{table}/ with read_json (newline-delimited, gzip, hive ' +
      'partitions: dt and run are columns) and every column typed from the catalogue, then the `_latest` ' +
      'and change views. A table with no part files yet (the store is listed) is an empty typed view, so ' +
      'the script runs whole. Default root: sinks.fs.dir (made absolute) or ' +
      's3://{sinks.s3.bucket}/{sinks.s3.prefix}; a --root is written as given.',
    help: '\nExamples:\n  visync export duckdb --root ./data > views.sql\n  duckdb visync.duckdb < views.sql\n  duckdb visync.duckdb -c "SELECT account, count(*) FROM brands GROUP BY 1"',
  })
    .option(
      '--root <path|s3url>',
      'object store root: a folder or s3://bucket/prefix (default: the configured sink)',
      parseRoot,
    )
    .option(
      '--list',
      'also list an S3 store (the configured sinks.s3) for tables with no files yet; a folder is always listed',
    )
    .action(exitWith(state, (flags: DuckdbFlags, cmd: Command) => exportDuckdb(io, flags, cmd)));
}

type DuckdbFlags = OutFlags & { root?: string; list?: boolean };

async function exportDuckdb(io: CommandIo, flags: DuckdbFlags, cmd: Command): Promise<number> {
  const config = await configOf(cmd);
  const [{ resolve }, { WAREHOUSE_TABLES }, { duckdbViewsSql, duckdbCurrentStateViews }, { s3Location }] =
    await Promise.all([
      import('node:path'),
      import('../catalogue/index.js'),
      import('../export/duckdb.js'),
      import('../export/athena.js'),
    ]);
  const { sinks } = await exportScope(config, flags.account, flags.root ? 'none' : 'store');
  const isS3 = (root: string) => /^s3:\/\//.test(root);
  // A root given on the command line is written as given (a relative folder stays relative).
  const given = flags.root ?? defaultRoot(sinks, s3Location);
  const root = flags.root || isS3(given) ? given : resolve(given);
  await refuseRoot(root, 'duckdb', flags.root);
  // An S3 store is listed only when asked (--list): that loads the S3 client and needs read access.
  const storeSinks: SinksConfig | undefined = !isS3(root)
    ? { fs: { dir: resolve(root) } }
    : flags.list && sinks.s3 && s3Location(sinks.s3.bucket, sinks.s3.prefix) === root
      ? { s3: sinks.s3 }
      : undefined;
  const withFiles = storeSinks ? await listedTables(storeSinks, WAREHOUSE_TABLES) : undefined;
  const views = duckdbCurrentStateViews();
  const text = duckdbViewsSql({ tables: WAREHOUSE_TABLES, root, withFiles, views });
  return emit(io, flags.out, text, `${WAREHOUSE_TABLES.length} tables, ${views.length} views`);
}

/** The tables with part files in the store, or undefined when it cannot be listed (say, no S3 access). */
async function listedTables(
  sinks: SinksConfig,
  tables: readonly import('../catalogue/index.js').TableDef[],
): Promise<Set<string> | undefined> {
  const [{ createObjectStore }, { tablesWithFiles }] = await Promise.all([
    import('../sinks/create-store.js'),
    import('../export/tables-with-files.js'),
  ]);
  try {
    return await tablesWithFiles(await createObjectStore(sinks), tables);
  } catch {
    return undefined;
  }
}

async function configOf(cmd: Command): Promise<Config> {
  const { readConfigWithoutKeys } = await import('../config/read-config.js');
  return readConfigWithoutKeys(configOption(cmd));
}

function defaultRoot(sinks: SinksConfig, s3Location: (bucket: string, prefix: string) => string): string {
  if (sinks.s3) return s3Location(sinks.s3.bucket, sinks.s3.prefix);
  return sinks.fs?.dir ?? '.';
}

/**
 * The sinks an export describes and the accounts in it: one account's (--account), or the
 * configured ones when every account shares them. Accounts with their own dataset, prefix or
 * folder (docs/configuration.md "Many accounts") are described one at a time: the output names one location.
 */
async function exportScope(
  config: Config,
  account: string | undefined,
  shared: 'bigquery' | 's3' | 'store' | 'none',
): Promise<{ sinks: SinksConfig; accounts: string[] }> {
  const { accountSettings, groupBySinks, storeKey, warehouseKey } = await import(
    '../config/account-settings.js'
  );
  if (account) return { sinks: accountSettings(config, account).sinks, accounts: [account] };
  const accounts = config.accounts.map((a) => a.name);
  if (shared === 'none' || !accounts.length) return { sinks: config.sinks, accounts };
  const by = {
    bigquery: { keyOf: (s: SinksConfig) => warehouseKey(s) ?? '', what: 'datasets' },
    s3: { keyOf: (s: SinksConfig) => JSON.stringify(s.s3 ?? null), what: 'S3 prefixes' },
    store: { keyOf: storeKey, what: 'stores' },
  }[shared];
  const groups = groupBySinks(config, accounts, by.keyOf);
  if (groups.length > 1) {
    const examples = groups
      .map((names) => names[0])
      .slice(0, 3)
      .join(', ');
    throw new CliError(
      `the accounts use ${groups.length} different ${by.what}: export one at a time with --account NAME (e.g. ${examples})`,
    );
  }
  return { sinks: accountSettings(config, accounts[0] as string).sinks, accounts };
}

async function emit(io: CommandIo, out: string | undefined, text: string, what: string): Promise<number> {
  if (!out) {
    io.verbatim(text.trimEnd());
    return 0;
  }
  const { writeFileMakingFolders } = await import('../util/safe-write.js');
  // Whole or not at all (a temporary file renamed), never through a link at `out`.
  await written(writeFileMakingFolders(out, text));
  io.out(`wrote ${out} (${what})`);
  return 0;
}

/** A write's refusal as the command's one line: exit 64 for a path that cannot be what it must be. */
async function written(write: Promise<void>): Promise<void> {
  // The handler is attached at once: the write is already under way, and may fail before an import.
  await write.catch(async (err: unknown) => {
    const { WriteRefused } = await import('../util/safe-write.js');
    throw err instanceof WriteRefused ? new CliError(err.message, err.usage ? EXIT_USAGE : 1) : err;
  });
}

/**
 * Refuses a root the reader cannot take as a literal path, naming where it came from: `--root`,
 * or the configured store (sinks.fs.dir, sinks.s3).
 */
async function refuseRoot(root: string, reader: RootReader, option: string | undefined): Promise<void> {
  const { rootProblem } = await import('../export/store-root.js');
  const problem = rootProblem(root, reader);
  if (!problem) return;
  throw new CliError(
    option === undefined
      ? `the configured store ${terminalSafe(JSON.stringify(root))} ${problem}: give a --root without it`
      : `--root ${terminalSafe(JSON.stringify(option))} ${problem}: give a root without it`,
    EXIT_USAGE,
  );
}

/** A root never holds a line break or control character: it is written into SQL, YAML and comments. */
function parseRoot(value: string): string {
  if (hasControlCharacter(value))
    throw new InvalidArgumentError('the root holds a line break or other control character');
  return value;
}

function parseS3Url(value: string): string {
  if (!/^s3:\/\/[^/]+/.test(value)) throw new InvalidArgumentError('expected s3://bucket/prefix/');
  return parseRoot(value);
}

/** A Glue database name (letters, digits, _): written into sources.yml, which dbt renders. */
function parseDatabase(value: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(value))
    throw new InvalidArgumentError('expected a Glue database name made of letters, digits and _');
  return value;
}
