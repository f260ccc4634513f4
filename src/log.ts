// pino logger whose output stream scrubs every registered secret. Code never logs a key on
// purpose; this is the net under that rule, for a key echoed back inside some error text.
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { secretForms } from './util/redact.js';

/** Every form of every registered secret, longest first. */
let forms: string[] = [];

/**
 * Shorter values are not taken: scrubbing two or three characters wherever they occur would
 * garble every log line, and no real API key is that short.
 */
export const MIN_SECRET_LENGTH = 4;

/** Registers a value (an API key) that must never be written by the logger or a CLI error line. */
export function registerSecret(value: string): void {
  if (value.length < MIN_SECRET_LENGTH) return;
  forms = [...new Set([...forms, ...secretForms(value)])].sort((a, b) => b.length - a.length);
}

/** Replaces every registered secret, raw, JSON-escaped or URL-encoded, with a fixed marker. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const f of forms) if (out.includes(f)) out = out.split(f).join('[redacted]');
  return out;
}

export interface LoggerOptions {
  level?: string;
  /** Where log lines go; default stderr, so stdout stays for results and tables. */
  stream?: NodeJS.WritableStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const target = opts.stream ?? process.stderr;
  const scrubbing = new Writable({
    write(chunk: Buffer, _enc, cb) {
      target.write(scrubSecrets(chunk.toString('utf8')));
      cb();
    },
  });
  return pino(
    {
      level: opts.level ?? process.env.VISYNC_LOG_LEVEL ?? 'info',
      base: undefined,
      redact: {
        paths: ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    scrubbing,
  );
}

/** A logger that writes nothing (library defaults, tests that do not read logs). */
export const silentLogger: Logger = pino({ level: 'silent' });
