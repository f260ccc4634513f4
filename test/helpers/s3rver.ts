// A real S3-protocol server (s3rver) on a free loopback port, backed by a temp directory.
// We serve s3rver's request handler from our own http server so tests can see which S3
// operations the SDK actually sent (e.g. that a large put really went multipart).
import crypto from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { S3ObjectStore } from '../../src/sinks/s3-store.js';

/** s3rver's built-in account; it verifies request signatures against these. */
export const S3RVER_ACCESS_KEY = 'S3RVER';
export const S3RVER_SECRET_KEY = 'S3RVER';

/** An S3 error answer: its HTTP status, error code (the SDK error's name) and message. */
export interface S3ErrorAnswer {
  status: number;
  code: string;
  message: string;
}

const INTERNAL_ERROR: S3ErrorAnswer = {
  status: 500,
  code: 'InternalError',
  message: 'We encountered an internal error. Please try again.',
};

export interface S3rverRequest {
  method: string;
  url: string;
}

export interface RunningS3rver {
  endpoint: string;
  /** Every request received, in order. */
  requests: S3rverRequest[];
  close(): Promise<void>;
}

// s3rver 3.7 encrypts ListObjectsV2 continuation tokens with single DES ('des'), which the
// OpenSSL 3 in Node >= 17 only has in the legacy provider: every truncated listing answers
// HTTP 500 InternalError. Three-key 3DES with K|K|K computes exactly single DES, so mapping the
// algorithm keeps s3rver's tokens byte-identical without --openssl-legacy-provider.
let desPatched = false;
function patchDesForS3rver(): void {
  if (desPatched) return;
  desPatched = true;
  type Factory = (algorithm: string, key: Buffer, iv: Buffer) => unknown;
  const mod = crypto as unknown as Record<'createCipheriv' | 'createDecipheriv', Factory>;
  for (const name of ['createCipheriv', 'createDecipheriv'] as const) {
    const original = mod[name].bind(crypto);
    mod[name] = (algorithm, key, iv) =>
      algorithm.toLowerCase() === 'des' && key.length === 8
        ? original('des-ede3-cbc', Buffer.concat([key, key, key]), iv)
        : original(algorithm, key, iv);
  }
}

export async function startS3rver(
  options: {
    buckets?: string[];
    /**
     * Requests answered 500 InternalError instead of served (a PutObject the service fails), or
     * with the error answer returned (its HTTP status, S3 error code and message).
     */
    refuse?: (req: S3rverRequest) => boolean | S3ErrorAnswer;
    /**
     * The folder s3rver keeps its buckets in, filled beforehand (bench/export-listing.ts writes a
     * year of objects there without a request each); left in place. Default: a temp folder, removed.
     */
    directory?: string;
  } = {},
): Promise<RunningS3rver> {
  // The store under test uses the SDK's default provider chain, which reads these first.
  process.env.AWS_ACCESS_KEY_ID = S3RVER_ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = S3RVER_SECRET_KEY;
  delete process.env.AWS_SESSION_TOKEN;

  patchDesForS3rver();
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'visync-s3rver-'));
  const removeDirectory = () => {
    if (!options.directory) rmSync(directory, { recursive: true, force: true });
  };
  const s3rver = new S3rver({
    directory,
    silent: true,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name, configs: [] })),
  });
  const requests: S3rverRequest[] = [];
  try {
    await s3rver.configureBuckets();
    const handle = s3rver.callback();
    const server = createServer((req, res) => {
      const r = { method: req.method ?? '', url: req.url ?? '' };
      requests.push(r);
      const refused = options.refuse?.(r);
      if (refused) {
        const a = refused === true ? INTERNAL_ERROR : refused;
        req.resume();
        res.writeHead(a.status, { 'content-type': 'application/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${a.code}</Code><Message>${a.message}</Message></Error>`,
        );
        return;
      }
      // The Date header from this process's Date, not from Node's own clock: a test that moves
      // Date (test/upgrade.test.ts) gets a server that says the moved time, as s3rver's signature
      // check reads it, and the SDK does not correct its clock towards the real one.
      res.setHeader('date', new Date().toUTCString());
      handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    return {
      endpoint: `http://127.0.0.1:${port}`,
      requests,
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        removeDirectory();
      },
    };
  } catch (err) {
    removeDirectory();
    throw err;
  }
}

/**
 * An endpoint that accepts connections and never answers (a hung proxy or server): a client
 * without request timeouts waits on it forever.
 */
export async function startSilentServer(): Promise<{
  endpoint: string;
  connections: () => number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A running s3rver with `bucket` and the real S3 store on it (prefix `p/`, one attempt, 5 s): both
 * closed by the caller's cleanups, last in first out.
 */
export async function s3rverStore(
  cleanups: (() => Promise<unknown> | unknown)[],
  bucket: string,
  refuse?: (req: S3rverRequest) => boolean | S3ErrorAnswer,
): Promise<S3ObjectStore> {
  const s3rver = await startS3rver({ buckets: [bucket], ...(refuse ? { refuse } : {}) });
  cleanups.push(() => s3rver.close());
  const store = new S3ObjectStore({
    bucket,
    prefix: 'p/',
    region: 'us-east-1',
    endpoint: s3rver.endpoint,
    forcePathStyle: true,
    requestTimeoutSeconds: 5,
    maxAttempts: 1,
  });
  cleanups.push(() => store.close());
  return store;
}
