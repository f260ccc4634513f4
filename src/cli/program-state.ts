// Commander actions cannot return an exit code; they record it here and main() returns it.
import { fstatSync } from 'node:fs';
import type { Command } from 'commander';
import { VisyncError } from '../util/errors.js';
import { terminalSafe } from '../util/terminal.js';

/** Where the CLI's lines go: stdout and stderr, or a test's arrays. Written to as given. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Whether `out` goes to a regular file (`visync ... > file`); absent: it does not (a test's arrays). */
  outIsFile?: () => boolean;
}

/**
 * What commands print through. `out` and `err` take one line a person reads: its fields may come
 * from the API or the store, so each line is escaped for the terminal (src/util/terminal.ts) here,
 * once for every command. `verbatim` prints a document for a program as it is: JSON (whose strings
 * JSON.stringify escapes) or generated SQL and YAML.
 */
export interface CommandIo extends CliIo {
  verbatim: (text: string) => void;
}

export function commandIo(io: CliIo): CommandIo {
  return {
    out: (line) => io.out(terminalSafe(line)),
    err: (line) => io.err(terminalSafe(line)),
    verbatim: (text) => io.out(text),
    ...(io.outIsFile ? { outIsFile: io.outIsFile } : {}),
  };
}

export const consoleIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  outIsFile: stdoutIsFile,
};

/** Whether this process's stdout is a regular file, not a terminal or a pipe. */
function stdoutIsFile(): boolean {
  try {
    return fstatSync(1).isFile();
  } catch {
    return false;
  }
}

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
