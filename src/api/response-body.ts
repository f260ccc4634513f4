// Reading an upstream answer's body: capped in size, and checked to be the JSON it claims to be.
import type { Dispatcher } from 'undici';
import { errorMessage, VisyncError } from '../util/errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

/** An attempt that broke one of our own limits (size, deadline): retried like a network error. */
export class LimitExceeded extends VisyncError {
  override readonly name = 'LimitExceeded';
  get code() {
    return 'response_limit' as const;
  }
}

/** The body as text, refused (and the transfer cut) once it passes `max` bytes. */
export async function readCapped(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const tooLarge = () =>
    new LimitExceeded(`response body larger than ${max} bytes (extract.maxResponseBytes)`);
  const declared = Number(res.headers['content-length']);
  if (declared > max) {
    res.body.destroy();
    throw tooLarge();
  }
  // Events, not `for await`: an async iterator per body (a promise per chunk, end-of-stream
  // tracking) cost more than reading a small body that mostly comes in one chunk.
  const body = res.body;
  // Destroyed before anything listened (the run's stop aborted the request while its slot was
  // settled, after the headers): its 'error' and 'close' have been emitted already and no event
  // will come again, so waiting for one would wait forever (test/client-stop.test.ts).
  if (body.destroyed) {
    throw body.errored ?? new Error('the response body was closed before it was read');
  }
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) body.destroy(tooLarge());
      else chunks.push(chunk);
    });
    // Most bodies come in one chunk: decoded where it lies, not copied first.
    body.once('end', () =>
      resolve((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)).toString('utf8')),
    );
    body.once('error', reject);
    // Closed with neither (destroyed without a reason): a promise settled already ignores this.
    body.once('close', () => reject(new Error('the response body was closed before its end')));
  });
}

export function parseJsonBody(out: {
  headers: Record<string, string | string[] | undefined>;
  text: string;
}): { ok: true; body: unknown } | { ok: false; why: string } {
  const type = out.headers['content-type'];
  const ct = Array.isArray(type) ? type[0] : type;
  if (!ct || !JSON_TYPE.test(ct)) return { ok: false, why: `content-type is ${ct ?? 'missing'}, not JSON` };
  try {
    return { ok: true, body: JSON.parse(out.text) };
  } catch (err) {
    return { ok: false, why: `body is not valid JSON (${errorMessage(err)})` };
  }
}
