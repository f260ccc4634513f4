// --log-level and --log-format, the same on every command that logs, and the logger they make.
import { type Command, Option } from 'commander';
import type { Logger } from 'pino';
import { createLogger, defaultLogFormat, LOG_FORMATS, type LogFormat, wantsColour } from '../log.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

export interface LogFlags {
  logLevel: string;
  /** Absent: chosen by where stderr goes (see defaultLogFormat). */
  logFormat?: LogFormat;
}

export function addLogOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--log-level <level>', 'level of the logs on stderr')
        .choices(LOG_LEVELS)
        .default('info')
        .env('VISYNC_LOG_LEVEL'),
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'pretty (readable, coloured) or json (one object per line); default pretty when stderr is a terminal, else json',
      )
        .choices(LOG_FORMATS)
        .env('VISYNC_LOG_FORMAT'),
    );
}

/**
 * The logger a command's --log-level and --log-format ask for. It writes to stderr, or to
 * `stream` standing in for stderr (the progress bars' log buffer), coloured if stderr is a terminal.
 */
export function commandLogger(flags: LogFlags, stream?: NodeJS.WritableStream): Logger {
  return createLogger({
    level: flags.logLevel,
    format: logFormat(flags),
    colorize: wantsColour(process.stderr),
    stream: stream ?? process.stderr,
  });
}

export function logFormat(flags: LogFlags): LogFormat {
  return flags.logFormat ?? defaultLogFormat(process.stderr);
}
