import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { HeadObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3SinkConfig } from '../src/config/schema.js';
import { createObjectStore } from '../src/sinks/create-store.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import { PART_SIZE, S3ObjectStore, S3StoreError } from '../src/sinks/s3-store.js';
import { freePort } from './helpers/net.js';
import { type RunningS3rver, startS3rver } from './helpers/s3rver.js';

const BUCKET = 'visync-test';
let server: RunningS3rver;
let raw: S3Client;
const stores: S3ObjectStore[] = [];

beforeAll(async () => {
  server = await startS3rver({ buckets: [BUCKET] });
  raw = new S3Client({
    region: 'us-east-1',
    endpoint: server.endpoint,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
});

afterAll(async () => {
  for (const s of stores) s.close();
  raw?.destroy();
  await server?.close();
});

let prefixCounter = 0;
/** Each test gets its own prefix in the shared bucket, so tests cannot see each other's keys. */
function s3Config(over: Partial<S3SinkConfig> = {}): S3SinkConfig {
  prefixCounter += 1;
  return {
    bucket: BUCKET,
    prefix: `visibility-${prefixCounter}/`,
    region: 'us-east-1',
    endpoint: server.endpoint,
    forcePathStyle: true,
    requestTimeoutSeconds: 60,
    maxAttempts: 5,
    ...over,
  };
}

function s3Store(over: Partial<S3SinkConfig> = {}, listPageSize?: number): S3ObjectStore {
  const store = new S3ObjectStore(s3Config(over), listPageSize ? { listPageSize } : {});
  stores.push(store);
  return store;
}

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

async function rawKeys(prefix: string): Promise<string[]> {
  const res = await raw.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (res.Contents ?? []).map((o) => o.Key ?? '').sort();
}

async function rejection(p: Promise<unknown>): Promise<S3StoreError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(S3StoreError);
  return err as S3StoreError;
}

async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await fn(item);
      }
    }),
  );
}

describe('S3ObjectStore', () => {
  it('round-trips text and gzip bytes with content headers, prefixing keys only on the server', async () => {
    const store = s3Store();
    const prefix = store.location.slice(`s3://${BUCKET}/`.length);
    expect(store.location).toBe(`s3://${BUCKET}/${prefix}`);

    const json = JSON.stringify({ request: { path: '/brands' }, body: { ok: 'ü€' } });
    const ndjson = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ i, v: `row ${i}` })).join('\n');
    const gz = gzipSync(ndjson);
    const binary = randomBytes(300_000);

    const textKey = 'raw/me/account=acme/dt=2024-05-01/run=r1/_account.json';
    const gzKey = 'tables/visibility/dt=2024-05-01/account=acme/run=r1/part-00000.ndjson.gz';
    const binKey = 'tables/visibility/dt=2024-05-01/account=acme/run=r1/part-00001.ndjson.gz';

    const putText = await store.put(textKey, json, { contentType: 'application/json' });
    expect(putText).toEqual({ key: textKey, bytes: Buffer.byteLength(json), sha256: sha(json) });
    const putGz = await store.put(gzKey, gz, {
      contentType: 'application/x-ndjson',
      contentEncoding: 'gzip',
    });
    expect(putGz).toEqual({ key: gzKey, bytes: gz.byteLength, sha256: sha(gz) });
    // A view into a larger buffer: only the viewed bytes may be stored.
    const padded = Buffer.concat([Buffer.from('xx'), binary, Buffer.from('yy')]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 2, binary.byteLength);
    const putBin = await store.put(binKey, view, { contentType: 'application/octet-stream' });
    expect(putBin).toEqual({ key: binKey, bytes: 300_000, sha256: sha(binary) });

    const gotText = await store.get(textKey);
    expect(gotText?.toString('utf8')).toBe(json);
    const gotGz = await store.get(gzKey);
    expect(gotGz && Buffer.compare(gotGz, gz)).toBe(0);
    expect(gunzipSync(gotGz ?? Buffer.alloc(0)).toString('utf8')).toBe(ndjson);
    const gotBin = await store.get(binKey);
    expect(gotBin?.byteLength).toBe(300_000);
    expect(sha(gotBin ?? '')).toBe(sha(binary));

    const headGz = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: prefix + gzKey }));
    expect(headGz.ContentType).toBe('application/x-ndjson');
    expect(headGz.ContentEncoding).toBe('gzip');
    expect(headGz.ContentLength).toBe(gz.byteLength);
    const headText = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: prefix + textKey }));
    expect(headText.ContentType).toBe('application/json');
    expect(headText.ContentEncoding).toBeUndefined();

    expect(await rawKeys(prefix)).toEqual([prefix + textKey, prefix + gzKey, prefix + binKey].sort());
    expect(await store.list('')).toEqual([textKey, gzKey, binKey].sort());
    expect(await store.list('tables/')).toEqual([gzKey, binKey]);
    expect(await store.list('raw/me/acc')).toEqual([textKey]);
    expect(await store.list('runs/')).toEqual([]);
    expect(await store.get('raw/me/missing.json')).toBeUndefined();
  });

  it('works without a prefix', async () => {
    const store = s3Store({ prefix: '' });
    expect(store.location).toBe(`s3://${BUCKET}/`);
    const key = `noprefix-${randomBytes(4).toString('hex')}/latest/account=a/brand=b.json`;
    await store.put(key, '{}', { contentType: 'application/json' });
    expect(await rawKeys(key.split('/')[0] ?? '')).toEqual([key]);
    expect(await store.list(key.split('/')[0] ?? '')).toEqual([key]);
  });

  it('overwrites a key in place', async () => {
    const store = s3Store();
    const key = 'runs/account=acme/run=r1/manifest.json';
    await store.put(key, '{"status":"partial","long":"xxxxxxxxxxxxxxxxxxxx"}', {
      contentType: 'application/json',
    });
    const second = await store.put(key, '{"status":"succeeded"}', { contentType: 'application/json' });
    expect(second.sha256).toBe(sha('{"status":"succeeded"}'));
    expect((await store.get(key))?.toString()).toBe('{"status":"succeeded"}');
    expect(await store.list('runs/')).toEqual([key]);
  });

  it('stores an object larger than one part byte-exact via multipart upload', async () => {
    const store = s3Store();
    const key = 'tables/visibility/dt=2024-05-01/account=acme/run=big/part-00000.ndjson.gz';
    const body = randomBytes(2 * PART_SIZE + 4321);
    const before = server.requests.length;

    const stored = await store.put(key, body, {
      contentType: 'application/x-ndjson',
      contentEncoding: 'gzip',
    });
    expect(stored).toEqual({ key, bytes: body.byteLength, sha256: sha(body) });

    const sent = server.requests.slice(before);
    expect(sent.filter((r) => r.method === 'POST' && /[?&]uploads(=|&|$)/.test(r.url))).toHaveLength(1);
    expect(sent.filter((r) => r.method === 'PUT' && /[?&]partNumber=/.test(r.url))).toHaveLength(3);

    const got = await store.get(key);
    expect(got?.byteLength).toBe(body.byteLength);
    expect(got && Buffer.compare(got, body)).toBe(0);
    const prefix = store.location.slice(`s3://${BUCKET}/`.length);
    const head = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: prefix + key }));
    expect(head.ContentEncoding).toBe('gzip');
    expect(head.ContentType).toBe('application/x-ndjson');
  });

  it('lists more than 1000 keys across pages, sorted and complete', async () => {
    const config = s3Config();
    const store = new S3ObjectStore(config);
    const small = new S3ObjectStore(config, { listPageSize: 97 });
    stores.push(store, small);
    const keys = Array.from(
      { length: 1100 },
      (_, i) => `raw/visibility/account=acme/dt=2024-05-01/run=r${i % 3}/brand-${i}.json`,
    );
    await mapLimit(keys, 16, (k) => store.put(k, `${k}\n`, { contentType: 'application/json' }));

    const before = server.requests.length;
    const listed = await store.list('raw/');
    const pages = server.requests
      .slice(before)
      .filter((r) => r.method === 'GET' && r.url.includes('list-type=2'));
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(listed).toEqual([...keys].sort());

    expect(await small.list('raw/')).toEqual([...keys].sort());
    expect(await small.list('raw/visibility/account=acme/dt=2024-05-01/run=r1/')).toEqual(
      keys.filter((k) => k.includes('/run=r1/')).sort(),
    );
  });

  it('names bucket and key and the fix when the bucket does not exist', async () => {
    const store = s3Store({ bucket: 'no-such-bucket', prefix: 'visibility/' });
    const put = await rejection(store.put('raw/me/x.json', '{}', { contentType: 'application/json' }));
    expect(put.message).toBe(
      's3://no-such-bucket/visibility/raw/me/x.json: bucket "no-such-bucket" does not exist (NoSuchBucket): create it or fix sinks.s3.bucket',
    );
    expect(put.reason).toBe('no-such-bucket');
    expect(put.cause).toBeInstanceOf(S3ServiceException);
    expect(put.message).not.toContain('\n');

    // A missing bucket is never mistaken for a missing object.
    const get = await rejection(store.get('raw/me/x.json'));
    expect(get.message).toMatch(
      /^s3:\/\/no-such-bucket\/visibility\/raw\/me\/x\.json: bucket "no-such-bucket"/,
    );
    const list = await rejection(store.list('raw/'));
    expect(list.message).toMatch(
      /^s3:\/\/no-such-bucket\/visibility\/raw\/: bucket "no-such-bucket" does not exist/,
    );
    const check = await rejection(store.check());
    expect(check.reason).toBe('no-such-bucket');
    expect(check.message).toContain('fix sinks.s3.bucket');

    await expect(s3Store().check()).resolves.toBeUndefined();
  });

  it('gives a clear message when the endpoint is unreachable', async () => {
    const port = await freePort();
    const endpoint = `http://127.0.0.1:${port}`;
    const store = s3Store({ endpoint, prefix: 'p/' });
    const put = await rejection(store.put('raw/me/x.json', '{}', { contentType: 'application/json' }));
    expect(put.message).toBe(
      `s3://${BUCKET}/p/raw/me/x.json: cannot reach ${endpoint} (ECONNREFUSED): check sinks.s3.endpoint, the network and any proxy`,
    );
    expect(put.reason).toBe('unreachable');
    expect(put.cause).toBeInstanceOf(Error);
    expect((await rejection(store.get('raw/me/x.json'))).reason).toBe('unreachable');
    expect((await rejection(store.list('raw/'))).reason).toBe('unreachable');
  });

  it('says so when the server rejects the credentials', async () => {
    const saved = process.env.AWS_ACCESS_KEY_ID;
    process.env.AWS_ACCESS_KEY_ID = 'NOT-S3RVER';
    try {
      const store = s3Store();
      const err = await rejection(store.put('raw/me/x.json', '{}', { contentType: 'application/json' }));
      expect(err.reason).toBe('credentials');
      expect(err.message).toMatch(
        /^s3:\/\/visync-test\/visibility-\d+\/raw\/me\/x\.json: the S3 server rejected/,
      );
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved;
    }
  });

  it('is what createObjectStore returns for sinks.s3', async () => {
    const config = s3Config({ prefix: 'v/' });
    const store = await createObjectStore({ s3: config });
    expect(store).toBeInstanceOf(S3ObjectStore);
    expect(store.location).toBe(`s3://${BUCKET}/v/`);
    (store as S3ObjectStore).close();
  });
});

describe('ObjectStore conformance: fs and S3 behave the same', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('lists and reads back the same keys and bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'visync-conformance-'));
    dirs.push(dir);
    const fs = new FsObjectStore(dir);
    const s3 = s3Store();
    const objects: [string, Uint8Array | string, string?][] = [
      ['raw/me/account=acme/dt=2024-05-01/run=r1/_account.json', '{"me":1}'],
      ['raw/brand/account=acme/dt=2024-05-01/run=r1/ws%2F1.json', '{"id":"ws/1"}'],
      ['raw/brand/account=acme/dt=2024-05-01/run=r1/%2E.json', '{"id":"."}'],
      ['raw/brand/account=acme/dt=2024-05-01/run=r1/a%20b%C3%A9.json', '{"id":"a bé"}'],
      ['raw/buyer-intent/account=acme/dt=2024-05-01/run=r1/ws1.days-30.json', '{}'],
      [
        'tables/visibility/dt=2024-05-01/account=acme/run=r1/part-00000.ndjson.gz',
        gzipSync('{"a":1}\n'),
        'gzip',
      ],
      ['runs/account=acme/run=r1/manifest.json', '{"status":"succeeded"}'],
      ['latest/account=acme/brand=ws1.json', ''],
    ];
    for (const [key, body, encoding] of objects) {
      const options = { contentType: 'application/json', ...(encoding ? { contentEncoding: encoding } : {}) };
      const a = await fs.put(key, body, options);
      const b = await s3.put(key, body, options);
      expect(b).toEqual(a);
    }
    // Overwrite behaves the same too.
    for (const store of [fs, s3] as ObjectStore[]) {
      await store.put('runs/account=acme/run=r1/manifest.json', '{"status":"partial"}', {
        contentType: 'application/json',
      });
    }

    for (const prefix of [
      '',
      'raw/',
      'raw/brand/',
      'raw/b',
      'tables/visibility/dt=2024-05-01/',
      'nothing/',
    ]) {
      const fsList = await fs.list(prefix);
      expect(await s3.list(prefix), `list(${JSON.stringify(prefix)})`).toEqual(fsList);
    }
    expect((await fs.list('')).length).toBe(objects.length);

    for (const [key] of objects) {
      const a = await fs.get(key);
      const b = await s3.get(key);
      expect(a).toBeDefined();
      expect(b && a && Buffer.compare(a, b), key).toBe(0);
    }
    expect(await s3.get('raw/none.json')).toBeUndefined();
    expect(await fs.get('raw/none.json')).toBeUndefined();

    for (const bad of ['../escape.json', 'raw//x.json', '/abs.json', 'raw/./x.json']) {
      await expect(fs.put(bad, '{}', { contentType: 'application/json' })).rejects.toThrow(
        /unsafe object key/,
      );
      await expect(s3.put(bad, '{}', { contentType: 'application/json' })).rejects.toThrow(
        /unsafe object key/,
      );
      await expect(s3.get(bad)).rejects.toThrow(/unsafe object key/);
    }
  });
});
