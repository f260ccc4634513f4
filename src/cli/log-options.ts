// --log-level and --log-format, the same on every command that logs (the logger they make is in
// command-logger.ts, loaded by the actions: registering options must not load pino).
import { type Command, Option } from 'commander';
import { LOG_FORMATS, type LogFormat } from '../log-formats.js';

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

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
