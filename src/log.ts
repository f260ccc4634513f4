// pino logger whose output stream scrubs every registered secret. Code never logs a key on
// purpose; this is the net under that rule, for a key echoed back inside some error text.
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import type * as PinoPretty from 'pino-pretty';
import type { LogFormat } from './log-formats.js';
import { MIN_SECRET_LENGTH, REDACTED, replaceForms, secretForms } from './util/redact.js';
import { terminalSafe } from './util/terminal.js';

export { MIN_SECRET_LENGTH } from './util/redact.js';

/** Every form of every registered secret. */
const registered = new Set<string>();
/** The same, longest first (a key's longer forms are replaced before the shorter ones inside them). */
let forms: string[] = [];
/** Sorted at the next scrub, not per key: an agency's thousand keys register in one pass. */
let formsStale = false;

/** Registers a value (an API key) that must never be written by the logger or a CLI error line. */
export function registerSecret(value: string): void {
  if (value.length < MIN_SECRET_LENGTH) return;
  for (const form of secretForms(value)) {
    if (registered.has(form)) continue;
    registered.add(form);
    formsStale = true;
  }
}

/** Replaces every registered secret, raw, JSON-escaped or URL-encoded, with a fixed marker. */
export function scrubSecrets(text: string): string {
  if (formsStale) {
    forms = [...registered].sort((a, b) => b.length - a.length);
    formsStale = false;
  }
  return replaceForms(text, forms);
}

export { LOG_FORMATS, type LogFormat } from './log-formats.js';

export interface LoggerOptions {
  level?: string;
  /** Where log lines go; default stderr, so stdout stays for results and tables. */
  stream?: NodeJS.WritableStream;
  /** Default json. */
  format?: LogFormat;
  /** Pretty format only: ANSI colours. Default: when the stream is a terminal and NO_COLOR is unset. */
  colorize?: boolean;
}

/** Pretty on a terminal, JSON everywhere else (pipes, files, services). */
export function defaultLogFormat(stream: NodeJS.WritableStream = process.stderr): LogFormat {
  return isTerminal(stream) ? 'pretty' : 'json';
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const target = opts.stream ?? process.stderr;
  const render = opts.format === 'pretty' ? prettyLines(opts.colorize ?? wantsColour(target)) : undefined;
  // Scrubbed before rendering (the JSON text holds every escaped form of a key) and after (what
  // reaches the stream is what counts).
  const scrubbing = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const line = scrubSecrets(chunk.toString('utf8'));
      target.write(render ? scrubSecrets(render(line)) : line);
      cb();
    },
  });
  return pino(
    {
      level: opts.level ?? process.env.VISYNC_LOG_LEVEL ?? 'info',
      base: undefined,
      // What log collectors read without a parser of their own: an ISO-8601 time, the level by
      // name, and `severity` as Google Cloud Logging reads it (docs/operations.md "Logs").
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label, severity: SEVERITY[label] ?? 'DEFAULT' }) },
      redact: {
        paths: ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization'],
        censor: REDACTED,
      },
      hooks: { streamWrite: oneValuePerKey },
    },
    scrubbing,
  );
}

/** pino's levels as Cloud Logging's LogSeverity names them. */
const SEVERITY: Record<string, string> = {
  trace: 'DEBUG',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARNING',
  error: 'ERROR',
  fatal: 'CRITICAL',
};

/**
 * pino writes a child's bindings after its parent's and the call's fields after both, without
 * looking for names already written: a pipeline function that logs `account` and `run_id` (it
 * cannot know whether its caller bound them) under a logger bound to both wrote each twice.
 * Parsing keeps one of each, the last written: the innermost binding or the call's own value,
 * in the position of its first occurrence.
 */
function oneValuePerKey(line: string): string {
  try {
    return `${JSON.stringify(JSON.parse(line))}\n`;
  } catch {
    return line;
  }
}

function prettyLines(colorize: boolean): (line: string) => string {
  // Loaded only for the pretty format: a worker logging JSON never pays for it at start.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  const prettify = prettyFactory({
    colorize,
    // One line per entry, fields after the message: log lines stay greppable and a progress bar
    // above them keeps its place.
    singleLine: true,
    translateTime: 'UTC:HH:MM:ss.l',
    ignore: 'pid,hostname,severity',
  });
  // For a person's terminal: a field from the API (a workspace id in a message) may hold ESC, CR
  // or LF; each string is escaped (src/util/terminal.ts) before pino-pretty adds its own colours.
  const safe = (line: string): string => {
    try {
      return JSON.stringify(JSON.parse(line), (_k, v: unknown) =>
        typeof v === 'string' ? terminalSafe(v) : v,
      );
    } catch {
      return line; // not pino's JSON: pino-pretty passes it through
    }
  };
  return (line) => prettify(safe(line));
}

function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Colours for a terminal, unless NO_COLOR is set. */
export function wantsColour(stream: NodeJS.WritableStream): boolean {
  return isTerminal(stream) && !process.env.NO_COLOR;
}

/** A logger that writes nothing (library defaults, tests that do not read logs). */
export const silentLogger: Logger = pino({ level: 'silent' });
