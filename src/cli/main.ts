// `visync`: one commander program; each command lives in its own module. Registering a command
// loads only commander and its option parsers: each action imports what it runs, so `--help` and
// a command that needs no cloud client start without loading the AWS SDK, BigQuery or BullMQ.
import { Command, CommanderError } from 'commander';
import { terminalSafe } from '../util/terminal.js';
import { packageVersion } from '../util/writer.js';
import { registerAlerts } from './alerts.js';
import { registerDoctor } from './doctor.js';
import { registerEnqueue } from './enqueue.js';
import { registerEvents } from './events.js';
import { EXIT_CONFIG, EXIT_USAGE } from './exit-codes.js';
import { registerExport } from './export.js';
import { refuseParentOptions } from './own-options.js';
import { CliError, type CliIo, commandIo, consoleIo, type ProgramState } from './program-state.js';
import { registerReplay } from './replay.js';
import { registerReport } from './report.js';
import { registerRun } from './run-once.js';
import { registerRuns } from './runs.js';
import { registerSimulate } from './simulate.js';
import { registerStatus } from './status.js';
import { registerWorker } from './worker.js';

export function buildProgram(state: ProgramState, raw: CliIo = consoleIo): Command {
  // Every command prints through this io: its lines escaped for the terminal, documents as they are.
  const io = commandIo(raw);
  const program = new Command('visync')
    .description(
      // One paragraph: commander wraps it to the terminal's width.
      'Copies AI-visibility data (scores, recommendations, prompts, buyer intent, reputation) from the ' +
        'read-only visibility API into an object store (local disk or S3) and BigQuery, within the ' +
        "account's rate limit, and turns it into client reports (`visync report`) and what changed for " +
        'each client (`visync events`). Check a setup with `visync doctor`; try it with `npm run demo` or ' +
        '`visync simulate` and `visync run` (see README.md). Exit codes: 0 succeeded, 2 partial, 1 failed, ' +
        '64 usage error, 78 config error.',
    )
    .version(packageVersion(), '-V, --version', 'print the visync version')
    .option('--config <path>', 'config file (default: $VISYNC_CONFIG or config/visync.yaml)')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({
      // Help is our text, many lines, printed as it is.
      writeOut: (s) => io.verbatim(s.trimEnd()),
      writeErr: (s) => raw.err(s.trimEnd()),
      // A parse error in one line (commander puts its "Did you mean" on a second), escaped: it
      // quotes what was typed. showHelpAfterError's pointer follows on a line of its own.
      outputError: (s, write) => write(`${terminalSafe(s.trimEnd().split('\n').join(' '))}\n`),
    });
  registerRun(program, state, io);
  registerReplay(program, state, io);
  registerWorker(program, state, io);
  registerEnqueue(program, state, io);
  registerStatus(program, state, io);
  registerDoctor(program, state, io);
  registerRuns(program, state, io);
  registerEvents(program, state, io);
  registerExport(program, state, io);
  registerReport(program, state, io);
  registerAlerts(program, state, io);
  registerSimulate(program);
  for (const cmd of program.commands) cmd.exitOverride();
  refuseParentOptions(program);
  return program;
}

/** Runs the CLI; resolves with the process exit code (never calls process.exit itself). */
export async function main(argv: string[], raw: CliIo = consoleIo): Promise<number> {
  // Under --json a refusal prints a document too (docs/cli-json.md), unless the command printed
  // its own before it failed: the refusal's line and the exit code.
  let printed = false;
  const counted: CliIo = {
    ...raw,
    out: (line) => {
      printed = true;
      raw.out(line);
    },
  };
  const state: ProgramState = { exitCode: 0 };
  const program = buildProgram(state, counted);
  const { code, refusal } = await run(program, state, argv, counted);
  if (refusal !== undefined && !printed && asksForJson(program, argv)) {
    const { refusalResult } = await import('./json-result.js');
    raw.out(JSON.stringify(refusalResult(refusal, code), null, 2));
  }
  return code;
}

/**
 * Whether `argv` runs a command that takes --json and asks for it: the command found by its names
 * in argv (`report send`). `export duckdb --json` is an unknown option, not a request for JSON.
 */
function asksForJson(program: Command, argv: string[]): boolean {
  const end = argv.indexOf('--');
  const words = argv.slice(2, end < 0 ? undefined : end);
  let cmd = program;
  for (const w of words) cmd = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w)) ?? cmd;
  return words.includes('--json') && cmd.options.some((o) => o.long === '--json');
}

/** The exit code, and the one line of a refusal (without `visync: `) when the command was refused. */
async function run(
  program: Command,
  state: ProgramState,
  argv: string[],
  raw: CliIo,
): Promise<{ code: number; refusal?: string }> {
  const io = commandIo(raw);
  try {
    await program.parseAsync(argv);
    return { code: state.exitCode };
  } catch (err) {
    // Help and --version exit 0; every other commander error is a usage error.
    if (err instanceof CommanderError)
      return err.exitCode === 0
        ? { code: 0 }
        : {
            code: EXIT_USAGE,
            refusal: terminalSafe(err.message.split('\n')[0] ?? '').replace(/^error: /, ''),
          };
    // Loaded only now: the command that failed has loaded them already, or they are cheap enough here.
    const [{ RedisUnreachableError }, { ConfigError }, { UnknownAccountError }, { scrubSecrets }] =
      await Promise.all([
        import('../../jobs/connection.js'),
        import('../config/read-config.js'),
        import('../config/account-settings.js'),
        import('../log.js'),
      ]);
    if (
      err instanceof ConfigError ||
      err instanceof CliError ||
      err instanceof RedisUnreachableError ||
      err instanceof UnknownAccountError
    ) {
      const line = scrubSecrets(err.message);
      io.err(`visync: ${line}`);
      const code =
        err instanceof CliError
          ? err.exitCode
          : err instanceof ConfigError
            ? EXIT_CONFIG
            : err instanceof UnknownAccountError
              ? EXIT_USAGE
              : 1;
      return { code, refusal: terminalSafe(line) };
    }
    // The message on one line, escaped like any other; the stack's frames on lines of their own.
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    const stack = err instanceof Error ? (err.stack ?? '') : '';
    const frames = stack.split('\n').filter((l) => /^\s+at /.test(l));
    io.err(`visync: unexpected error: ${scrubSecrets(message)}`);
    for (const frame of frames) io.err(scrubSecrets(frame));
    return { code: 1, refusal: terminalSafe(`unexpected error: ${scrubSecrets(message)}`) };
  }
}
