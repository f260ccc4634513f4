// Commander actions cannot return an exit code; they record it here and main() returns it.
import type { Command } from 'commander';
import { VisyncError } from '../util/errors.js';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const consoleIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Thrown by commands for an expected failure: printed as one line, no stack. */
export class CliError extends VisyncError {
  get code() {
    return 'cli_failed' as const;
  }

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export type Action<A extends unknown[]> = (...args: A) => Promise<number>;

export interface ProgramState {
  exitCode: number;
}

/** Wraps an action so that its returned number becomes the process exit code. */
export function exitWith<A extends unknown[]>(
  state: ProgramState,
  fn: Action<A>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    state.exitCode = await fn(...args);
  };
}

/** The global --config value, from any subcommand. */
export function configOption(cmd: Command): string | undefined {
  return (cmd.optsWithGlobals() as { config?: string }).config;
}
