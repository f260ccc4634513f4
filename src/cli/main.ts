// `visync`: one commander program; each command lives in its own module.
import { Command, CommanderError } from 'commander';
import { RedisUnreachableError } from '../../jobs/connection.js';
import { ConfigError } from '../config/load.js';
import { scrubSecrets } from '../log.js';
import { registerDoctor } from './doctor.js';
import { registerEnqueue } from './enqueue.js';
import { CliError, type CliIo, consoleIo, type ProgramState } from './program-state.js';
import { registerReplay } from './replay.js';
import { registerRun } from './run-once.js';
import { registerRuns } from './runs.js';
import { registerSimulate } from './simulate.js';
import { registerStatus } from './status.js';
import { registerWorker } from './worker.js';

export function buildProgram(state: ProgramState, io: CliIo = consoleIo): Command {
  const program = new Command('visync')
    .description(
      'Copies AI-visibility data (scores, recommendations, prompts, buyer intent, reputation) from the\n' +
        'read-only visibility API into an object store (local disk or S3) and BigQuery, within the\n' +
        "account's rate limit. Start with `visync simulate` and `visync run --once` (see README.md).",
    )
    .option('--config <path>', 'config file (default: $VISYNC_CONFIG or config/visync.yaml)')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  registerRun(program, state, io);
  registerReplay(program, state, io);
  registerWorker(program, state, io);
  registerEnqueue(program, state, io);
  registerStatus(program, state, io);
  registerDoctor(program, state, io);
  registerRuns(program, state, io);
  registerSimulate(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Runs the CLI; resolves with the process exit code (never calls process.exit itself). */
export async function main(argv: string[], io: CliIo = consoleIo): Promise<number> {
  const state: ProgramState = { exitCode: 0 };
  const program = buildProgram(state, io);
  try {
    await program.parseAsync(argv);
    return state.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof ConfigError || err instanceof CliError || err instanceof RedisUnreachableError) {
      io.err(`visync: ${scrubSecrets(err.message)}`);
      return err instanceof CliError ? err.exitCode : 1;
    }
    io.err(
      `visync: unexpected error: ${scrubSecrets(err instanceof Error ? (err.stack ?? err.message) : String(err))}`,
    );
    return 1;
  }
}
