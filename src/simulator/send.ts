// Puts a reply on the socket the way a fault asks (huge, slow, malformed, mislabelled, drifted),
// and records in the request log what was really sent.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RawEndpoint } from '../api/endpoints.js';
import { sha256Hex } from '../util/hash.js';
import { sleep } from '../util/time.js';
import {
  applyFieldFault,
  applyShortList,
  DEFAULT_HUGE_BODY_BYTES,
  DEFAULT_SLOW_BODY_DELAY_MS,
  type FaultRule,
  hugeBodyChunks,
  truncateBody,
} from './faults.js';
import type { Reply } from './replies.js';
import type { RequestLogEntry } from './types.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Waits `ms`, ending early and quietly when the simulator closes, so close() never waits on a delay. */
export function pause(ms: number, closing: AbortSignal): Promise<void> {
  return sleep(ms, closing).catch(() => undefined);
}

export async function sendReply(
  res: ServerResponse,
  entry: RequestLogEntry,
  { reply, fault }: { reply: Reply; fault?: FaultRule },
  closing: AbortSignal,
): Promise<void> {
  if (fault?.kind === 'huge-body' && reply.status === 200) return sendHuge(res, entry, fault, closing);
  const bytes = bodyBytes(reply, fault, entry.endpoint);
  entry.status = reply.status;
  entry.bytes = bytes.length;
  entry.bodySha256 = sha256Hex(bytes);
  res.writeHead(reply.status, {
    'content-type': fault?.kind === 'wrong-content-type' ? 'text/html; charset=utf-8' : JSON_TYPE,
    'content-length': String(bytes.length),
    ...reply.headers,
  });
  if (fault?.kind === 'slow-body') return sendSlowly(res, bytes, fault, closing);
  res.end(bytes);
}

/** The body as sent: fields added or removed, or cut short, when the fault says so. */
function bodyBytes(reply: Reply, fault: FaultRule | undefined, endpoint: RawEndpoint | null): Buffer {
  let body = reply.body;
  if (fault && reply.status === 200 && (fault.kind === 'extra-fields' || fault.kind === 'missing-fields')) {
    body = applyFieldFault(body, fault, endpoint);
  }
  if (fault?.kind === 'short-list' && reply.status === 200) body = applyShortList(body, fault);
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  return fault?.kind === 'malformed-json' ? truncateBody(bytes) : bytes;
}

async function sendSlowly(res: ServerResponse, bytes: Buffer, fault: FaultRule, closing: AbortSignal) {
  const size = fault.chunkBytes ?? Math.ceil(bytes.length / 4);
  for (let i = 0; i < bytes.length; i += size) {
    if (i > 0) await pause(fault.delayMs ?? DEFAULT_SLOW_BODY_DELAY_MS, closing);
    if (!(await write(res, bytes.subarray(i, i + size), closing))) return;
  }
  res.end();
}

/** A valid JSON body of `fault.bytes`, streamed without a length; the log counts what was sent. */
async function sendHuge(res: ServerResponse, entry: RequestLogEntry, fault: FaultRule, closing: AbortSignal) {
  entry.status = 200;
  entry.bytes = 0;
  const hash = createHash('sha256');
  res.writeHead(200, { 'content-type': JSON_TYPE });
  for (const piece of hugeBodyChunks(fault.bytes ?? DEFAULT_HUGE_BODY_BYTES)) {
    if (!(await write(res, piece, closing))) return;
    hash.update(piece);
    entry.bytes += piece.length;
  }
  entry.bodySha256 = hash.digest('hex');
  res.end();
}

/** Writes one piece, waiting while the socket is full; false once the client has gone. */
async function write(res: ServerResponse, piece: Buffer, closing: AbortSignal): Promise<boolean> {
  if (res.destroyed || closing.aborted) return false;
  if (res.write(piece)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      closing.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
    closing.addEventListener('abort', done, { once: true });
  });
  return !res.destroyed && !closing.aborted;
}
