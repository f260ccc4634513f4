// The logger a command's --log-level and --log-format (log-options.ts) ask for.
import type { Logger } from 'pino';
import { createLogger, defaultLogFormat, type LogFormat, wantsColour } from '../log.js';
import type { LogFlags } from './log-options.js';

/**
 * Writes to stderr, or to `stream` standing in for stderr (the progress bars' log buffer),
 * coloured if stderr is a terminal.
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
