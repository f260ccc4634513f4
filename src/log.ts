// pino logger whose output stream scrubs every registered secret. Code never logs a key on
// purpose; this is the net under that rule, for a key echoed back inside some error text.
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

const secrets = new Set<string>();

/** Registers a value (an API key) that must never be written by the logger. */
export function registerSecret(value: string): void {
  if (value.length >= 8) secrets.add(value);
}

/** Replaces every registered secret in `text` with a fixed marker. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
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
