// An S3 endpoint that accepts connections and never answers: the put must fail within its request
// timeouts and bounded attempts, with a message naming the bucket, the key and the settings.
import { afterEach, describe, expect, it } from 'vitest';
import { S3ObjectStore, S3StoreError } from '../src/sinks/s3-store.js';
import { startS3rver, startSilentServer } from './helpers/s3rver.js';

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
