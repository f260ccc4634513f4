// An S3 endpoint that accepts connections and never answers: the put must fail within its request
// timeouts and bounded attempts, with a message naming the bucket, the key and the settings.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { S3ObjectStore, S3StoreError } from '../src/sinks/s3-store.js';
import { s3rverStore, startS3rver, startSilentServer } from './helpers/s3rver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('S3 request timeouts', () => {
  it('a server that accepts and never answers fails the put with a clear, retryable error', async () => {
    // Sets the s3rver credentials in the environment for the SDK; its own server is not used.
    const s3rver = await startS3rver();
    cleanups.push(() => s3rver.close());
    const silent = await startSilentServer();
    cleanups.push(() => silent.close());
    const store = new S3ObjectStore({
      bucket: 'hung',
      prefix: 'p/',
      region: 'us-east-1',
      endpoint: silent.endpoint,
      forcePathStyle: true,
      requestTimeoutSeconds: 0.3,
      maxAttempts: 2,
    });
    cleanups.push(() => store.close());
    const err = await store.put('raw/me/x.json', '{}', { contentType: 'application/json' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(S3StoreError);
    const e = err as S3StoreError;
    expect(e.message).toMatch(/^s3:\/\/hung\/p\/raw\/me\/x\.json: /);
    expect(e.message).toMatch(/no answer within 0\.3 s \(sinks\.s3\.requestTimeoutSeconds\)/);
    expect(e.message).toMatch(/2 attempts \(sinks\.s3\.maxAttempts\)/);
    expect(e.reason).toBe('timeout');
    expect(e.retryable).toBe(true);
    expect(silent.connections()).toBe(2);
  }, 15_000);
});

// #31 item 3: the store classifies an SDK error by its name and HTTP status, never by its message.
describe('S3 errors classified by name and status, not by their text', () => {
  async function answeredWith(answer: { status: number; code: string; message: string }) {
    const store = await s3rverStore(cleanups, 'b', (r) => r.method === 'PUT' && answer);
    return (await store.put('raw/me/x.json', '{}', { contentType: 'application/json' }).then(
      () => undefined,
      (e: unknown) => e,
    )) as S3StoreError;
  }

  it('a server that answers, whatever its words, is neither unreachable nor silent', async () => {
    // Words of the SDK's own connect timeout, in an answer of the server: still an answer.
    const e = await answeredWith({
      status: 503,
      code: 'TimeoutError',
      message: 'the request socket did not establish a connection with the server',
    });
    expect(e).toBeInstanceOf(S3StoreError);
    expect(e.reason).toBe('other');
    expect(e.message).toMatch(
      /write failed \(TimeoutError\) \[HTTP 503\]: the request socket did not establish/,
    );

    const silentWords = await answeredWith({ status: 503, code: 'TimeoutError', message: 'slow down' });
    expect(silentWords.reason).toBe('other');
    expect(silentWords.message).toMatch(/\[HTTP 503\]: slow down/);
  });

  it('an answer is classified by its error name and status: AccessDenied, and a bare 403', async () => {
    const denied = await answeredWith({ status: 403, code: 'AccessDenied', message: 'no' });
    expect(denied.reason).toBe('access-denied');
    const bare = await answeredWith({ status: 403, code: 'SomethingElse', message: 'connect ECONNREFUSED' });
    expect(bare.reason).toBe('access-denied');
    expect(bare.message).toContain('grant this identity s3:PutObject');
  });
});

/**
 * An endpoint where a connect never completes: a process listening with a backlog of one whose
 * event loop is blocked accepts no connection, so once a few fill the backlog the next one hangs.
 */
async function blackHole(): Promise<{ endpoint: string; close(): void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () =>
        process.stdout.write(s.address().port + '\\n', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve) =>
    child.stdout.once('data', (d) => resolve(Number(String(d)))),
  );
  // Connections until one stays connecting: the backlog is full from then on.
  const fillers: Socket[] = [];
  for (let i = 0; i < 8; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    fillers.push(socket);
    const connected = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      setTimeout(() => resolve(false), 300);
    });
    if (!connected) break;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => {
      for (const f of fillers) f.destroy();
      child.kill('SIGKILL');
    },
  };
}

describe('S3 connect deadline', () => {
  it('a connect that never completes is unreachable (a ConnectTimeout by type), not a silent server', async () => {
    const s3rver = await startS3rver();
    cleanups.push(() => s3rver.close());
    const hole = await blackHole();
    cleanups.push(() => hole.close());
    const store = new S3ObjectStore({
      bucket: 'b',
      prefix: 'p/',
      region: 'us-east-1',
      endpoint: hole.endpoint,
      forcePathStyle: true,
      requestTimeoutSeconds: 0.4,
      maxAttempts: 2,
    });
    cleanups.push(() => store.close());
    const e = (await store.put('raw/me/x.json', '{}', { contentType: 'application/json' }).then(
      () => undefined,
      (err: unknown) => err,
    )) as S3StoreError;
    expect(e).toBeInstanceOf(S3StoreError);
    expect(e.reason).toBe('unreachable');
    expect(e.message).toBe(
      `s3://b/p/raw/me/x.json: cannot reach ${hole.endpoint} (TimeoutError): check sinks.s3.endpoint, the network and any proxy`,
    );
    expect(e.retryable).toBe(true);
  }, 15_000);
});
