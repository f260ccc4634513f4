// S3 (and S3-compatible) object store with the same key layout and semantics as the fs store.
// Every failure that an operator can fix (missing bucket, denied access, wrong endpoint, no
// credentials) becomes a one-line message naming the object and the fix; the SDK error stays
// on `cause` for debugging, so its stack never reaches the log line by default.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3SinkConfig } from '../config/schema.js';
import { VisyncError } from '../util/errors.js';
import { sha256Hex } from '../util/hash.js';
import { assertSafeKey, type ObjectStore, type PutOptions, type StoredObject } from './object-store.js';
import { deadlineAgents, isConnectTimeout } from './s3-connect.js';
import { presignGet } from './s3-presign.js';

/** Curated files can be large; parts of this size keep memory bounded and stay above S3's 5 MiB minimum. */
export const PART_SIZE = 8 * 1024 * 1024;

export type S3StoreErrorReason =
  | 'no-such-bucket'
  | 'access-denied'
  | 'credentials'
  | 'wrong-region'
  | 'unreachable'
  | 'timeout'
  | 'other';

export class S3StoreError extends VisyncError {
  override readonly name = 'S3StoreError';
  get code() {
    return 's3_store' as const;
  }
  constructor(
    message: string,
    readonly reason: S3StoreErrorReason,
    options: { cause: unknown },
  ) {
    super(message, options);
  }

  /** The server or the network may recover: the same request can succeed later. */
  get retryable(): boolean {
    return this.reason === 'unreachable' || this.reason === 'timeout';
  }
}

/**
 * Connecting takes no longer than this, and no longer than half the request timeout: a connect
 * that never completes then fails as one (unreachable) before the request's own deadline passes.
 */
const CONNECT_TIMEOUT_MS = 10_000;

export interface S3ObjectStoreOptions {
  /** A ready client (tests, or callers that share one); the store then never destroys it. */
  client?: S3Client;
  /** Keys per ListObjectsV2 page; S3 caps it at 1000 anyway. Smaller only to exercise paging. */
  listPageSize?: number;
}

// Network failures the SDK surfaces as plain Node errors after its own retries.
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'EPIPE',
  'TimeoutError',
]);

export class S3ObjectStore implements ObjectStore {
  readonly location: string;
  readonly #config: S3SinkConfig;
  readonly #client: S3Client;
  readonly #ownsClient: boolean;
  readonly #agents: ReturnType<typeof deadlineAgents> | undefined;
  readonly #listPageSize: number | undefined;

  constructor(config: S3SinkConfig, options: S3ObjectStoreOptions = {}) {
    this.#config = config;
    this.location = `s3://${config.bucket}/${config.prefix}`;
    this.#listPageSize = options.listPageSize;
    this.#ownsClient = !options.client;
    // Sockets with a deadline to connect: a connect that times out is a ConnectTimeout, by type.
    this.#agents = options.client
      ? undefined
      : deadlineAgents(Math.min(CONNECT_TIMEOUT_MS, (config.requestTimeoutSeconds * 1000) / 2));
    this.#client =
      options.client ??
      new S3Client({
        region: config.region,
        ...(config.endpoint ? { endpoint: config.endpoint } : {}),
        forcePathStyle: config.forcePathStyle,
        // With the default (WHEN_SUPPORTED) the SDK sends bodies `aws-chunked` with trailing
        // checksums; S3-compatible servers that do not decode that framing store it inside the
        // object without any error (see stack-notes). AWS itself is fine either way.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        // Without these a black-holed endpoint, or one that accepts and never answers, hangs the
        // run instead of failing: a deadline to connect (the agents'), one for the answer, and one for silence
        // mid-transfer; the SDK retries with backoff up to maxAttempts.
        requestHandler: {
          ...this.#agents,
          requestTimeout: config.requestTimeoutSeconds * 1000,
          throwOnRequestTimeout: true,
          socketTimeout: config.requestTimeoutSeconds * 1000,
        },
        maxAttempts: config.maxAttempts,
      });
  }

  /** Releases the sockets of a client this store created. */
  close(): void {
    if (!this.#ownsClient) return;
    this.#client.destroy();
    this.#agents?.httpAgent.destroy();
    this.#agents?.httpsAgent.destroy();
  }

  #key(key: string): string {
    assertSafeKey(key);
    return this.#config.prefix + key;
  }

  async put(key: string, body: Uint8Array | string, options: PutOptions): Promise<StoredObject> {
    const fullKey = this.#key(key);
    const bytes =
      typeof body === 'string'
        ? Buffer.from(body, 'utf8')
        : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const upload = new Upload({
      client: this.#client,
      partSize: PART_SIZE,
      params: {
        Bucket: this.#config.bucket,
        Key: fullKey,
        Body: bytes,
        ContentType: options.contentType,
        ContentEncoding: options.contentEncoding,
      },
    });
    try {
      await upload.done();
    } catch (err) {
      throw this.#error('write', fullKey, err);
    }
    return { key, bytes: bytes.byteLength, sha256: sha256Hex(bytes) };
  }

  async putIfAbsent(key: string, body: Uint8Array | string, options: PutOptions): Promise<boolean> {
    const fullKey = this.#key(key);
    // A server that ignores If-None-Match (s3rver, older S3-compatible stores) would overwrite:
    // an object already there is seen first, so only a put racing another one can slip through
    // (docs/reports.md: Redis, when configured, holds the claims instead).
    if ((await this.get(key)) !== undefined) return false;
    try {
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#config.bucket,
          Key: fullKey,
          Body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
          ContentType: options.contentType,
          IfNoneMatch: '*',
        }),
      );
      return true;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      // 412: the key exists; 409: a concurrent conditional put to it is in progress.
      if (status === 412 || status === 409) return false;
      throw this.#error('write', fullKey, err);
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    const fullKey = this.#key(key);
    try {
      const res = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#config.bucket, Key: fullKey }),
      );
      if (!res.Body) return Buffer.alloc(0);
      const data = await res.Body.transformToByteArray();
      return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    } catch (err) {
      if (isMissingKey(err)) return undefined;
      throw this.#error('read', fullKey, err);
    }
  }

  /** A presigned GET of one object (./s3-presign.ts): whoever has the URL reads it until it expires. */
  presignGet(key: string, expiresInSeconds: number, now: Date): Promise<string> {
    return presignGet(this.#client, this.#config.bucket, this.#key(key), expiresInSeconds, now);
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    for await (const keys of this.#pages(prefix, this.#listPageSize)) out.push(...keys);
    // S3 orders by UTF-8 bytes, the fs store by UTF-16 code units; sort here so both agree.
    return out.sort();
  }

  async findKey(prefix: string, accept: (key: string) => boolean): Promise<string | undefined> {
    // One key first: in a table's folder that is a part file, and the answer. Only a refused key
    // (a stray file) pages on, a page at a time.
    for await (const keys of this.#pages(prefix, 1)) {
      const found = keys.find(accept);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The keys under `prefix`, a ListObjectsV2 page at a time: the first of `firstPage` keys (S3 caps it at 1000). */
  async *#pages(prefix: string, firstPage: number | undefined): AsyncGenerator<string[]> {
    const storePrefix = this.#config.prefix;
    const fullPrefix = storePrefix + prefix;
    let maxKeys = firstPage;
    let token: string | undefined;
    do {
      let res: ListObjectsV2CommandOutput;
      try {
        res = await this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#config.bucket,
            Prefix: fullPrefix,
            ContinuationToken: token,
            ...(maxKeys ? { MaxKeys: maxKeys } : {}),
          }),
        );
      } catch (err) {
        throw this.#error('list', fullPrefix, err);
      }
      yield (res.Contents ?? []).flatMap((obj) =>
        obj.Key?.startsWith(fullPrefix) ? [obj.Key.slice(storePrefix.length)] : [],
      );
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
      maxKeys = this.#listPageSize;
    } while (token);
  }

  async delete(key: string): Promise<void> {
    const fullKey = this.#key(key);
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#config.bucket, Key: fullKey }));
    } catch (err) {
      throw this.#error('delete', fullKey, err);
    }
  }

  /** Verifies that the bucket exists and the credentials may use it (for `doctor`). */
  async check(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#config.bucket }));
    } catch (err) {
      throw this.#error('check', this.#config.prefix, err);
    }
  }

  #error(
    action: 'write' | 'read' | 'list' | 'check' | 'delete',
    fullKey: string,
    err: unknown,
  ): S3StoreError {
    const { bucket } = this.#config;
    const where = `s3://${bucket}/${fullKey}`;
    const name = errorName(err);
    const status = httpStatus(err);
    const detail = name && name !== 'Error' ? ` (${name})` : '';
    const make = (what: string, reason: S3StoreErrorReason) =>
      new S3StoreError(`${where}: ${what}`, reason, { cause: err });

    if (name === 'NoSuchBucket' || (action === 'check' && status === 404)) {
      return make(
        `bucket "${bucket}" does not exist${detail}: create it or fix sinks.s3.bucket`,
        'no-such-bucket',
      );
    }
    if (name === 'CredentialsProviderError') {
      return make(
        'no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run with an instance/task role',
        'credentials',
      );
    }
    if (
      name === 'InvalidAccessKeyId' ||
      name === 'SignatureDoesNotMatch' ||
      name === 'ExpiredToken' ||
      name === 'InvalidToken'
    ) {
      return make(
        `the S3 server rejected the credentials${detail}: check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (or the profile in use)`,
        'credentials',
      );
    }
    if (name === 'AccessDenied' || name === 'Forbidden' || status === 403) {
      return make(
        `access denied to bucket "${bucket}"${detail}: grant this identity s3:${permissionFor(action)} on the bucket and prefix`,
        'access-denied',
      );
    }
    if (
      name === 'PermanentRedirect' ||
      name === 'AuthorizationHeaderMalformed' ||
      status === 301 ||
      name === 'IllegalLocationConstraintException'
    ) {
      return make(
        `bucket "${bucket}" is not in region ${this.#config.region}${detail}: set sinks.s3.region to the bucket's region`,
        'wrong-region',
      );
    }
    // An answer is told by its error name and status above; the network's failures below have none.
    if (status === undefined && isTimeout(err)) {
      const { requestTimeoutSeconds, maxAttempts } = this.#config;
      return make(
        `no answer within ${requestTimeoutSeconds} s (sinks.s3.requestTimeoutSeconds) in ${maxAttempts} attempts (sinks.s3.maxAttempts) from ${this.#config.endpoint ?? `AWS S3 in ${this.#config.region}`}: the server or a proxy accepted the request and did not answer; retry later, or check sinks.s3.endpoint and the network`,
        'timeout',
      );
    }
    const code = status === undefined ? networkCode(err) : undefined;
    if (code) {
      const target = this.#config.endpoint ?? `AWS S3 in ${this.#config.region}`;
      return make(
        `cannot reach ${target} (${code}): check sinks.s3.endpoint, the network and any proxy`,
        'unreachable',
      );
    }
    const message = err instanceof Error ? firstLine(err.message) : String(err);
    return make(`${action} failed${detail}${status ? ` [HTTP ${status}]` : ''}: ${message}`, 'other');
  }
}

function permissionFor(action: 'write' | 'read' | 'list' | 'check' | 'delete'): string {
  switch (action) {
    case 'delete':
      return 'DeleteObject';
    case 'write':
      return 'PutObject';
    case 'read':
      return 'GetObject';
    case 'list':
    case 'check':
      return 'ListBucket';
  }
}

function errorName(err: unknown): string | undefined {
  // S3 error codes (NoSuchBucket, AccessDenied, ...) arrive as the SDK exception's name.
  return err instanceof Error ? err.name : undefined;
}

function httpStatus(err: unknown): number | undefined {
  const meta = (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata;
  return meta?.httpStatusCode;
}

function isMissingKey(err: unknown): boolean {
  const name = errorName(err);
  if (name === 'NoSuchKey') return true;
  // Some S3-compatible servers answer a missing object with a bare 404; a missing bucket is
  // still an error, never "no such object".
  return httpStatus(err) === 404 && name !== 'NoSuchBucket';
}

function networkCode(err: unknown): string | undefined {
  // Node puts the code on the error; with happy-eyeballs it may sit on an AggregateError's members.
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as { code?: unknown; name?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return e.code;
    if (typeof e.name === 'string' && UNREACHABLE_CODES.has(e.name)) return e.name;
    const inner = Array.isArray(e.errors) ? e.errors[0] : undefined;
    current = inner ?? e.cause;
  }
  return undefined;
}

/** The SDK's request or socket timeout (after its own retries); a connect timeout is 'unreachable'. */
function isTimeout(err: unknown): boolean {
  return !isConnectTimeout(err) && (errorName(err) === 'TimeoutError' || networkCode(err) === 'ETIMEDOUT');
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0] ?? '';
  return line.trim() || 'unknown error';
}
