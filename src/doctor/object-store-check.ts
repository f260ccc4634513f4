// Write, read back and delete one small probe object under the sink's prefix: the permissions a run
// needs (and delete, which only this probe uses), on the store the config names.
import { randomUUID } from 'node:crypto';
import type { ObjectStore } from '../sinks/object-store.js';
import { S3StoreError } from '../sinks/s3-store.js';
import { reasonOf } from '../util/errors.js';
import { type CheckResult, fail, pass, systemCode, warn } from './check.js';

export async function checkObjectStore(
  store: ObjectStore,
  fsDir: string | undefined,
  check = 'object store',
): Promise<CheckResult> {
  const key = `_doctor/probe-${randomUUID()}.txt`;
  const body = `visync doctor probe ${new Date().toISOString()}\n`;
  const where = store.location;
  try {
    await store.put(key, body, { contentType: 'text/plain' });
  } catch (err) {
    return fail(check, `cannot write a probe object to ${where}: ${reasonOf(err)}`, fixFor(err, fsDir));
  }
  let back: Buffer | undefined;
  try {
    back = await store.get(key);
  } catch (err) {
    return fail(
      check,
      `wrote ${key} in ${where} but cannot read it back: ${reasonOf(err)}`,
      fixFor(err, fsDir),
    );
  }
  if (back?.toString('utf8') !== body) {
    return fail(
      check,
      `wrote ${key} in ${where} but read back ${back === undefined ? 'nothing' : `${back.length} different bytes`}`,
      'check that the S3-compatible server stores objects as sent (checksums, proxies)',
    );
  }
  try {
    await store.delete(key);
  } catch (err) {
    return warn(
      check,
      `wrote and read back a probe object in ${where}, but could not delete ${key}: ${reasonOf(err)}`,
      'runs never delete, so this is harmless: remove the probe object by hand',
    );
  }
  return pass(check, `wrote, read back and deleted a probe object in ${where}`);
}

function fixFor(err: unknown, fsDir: string | undefined): string {
  if (err instanceof S3StoreError) {
    switch (err.reason) {
      case 'no-such-bucket':
        return 'create the bucket or fix sinks.s3.bucket';
      case 'access-denied':
        return 'grant s3:PutObject, s3:GetObject and s3:ListBucket on the bucket and prefix';
      case 'credentials':
        return 'set AWS credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or a role)';
      case 'wrong-region':
        return "set sinks.s3.region to the bucket's region";
      case 'unreachable':
        return 'check sinks.s3.endpoint, the network and any proxy';
      default:
        return 'check sinks.s3 and the S3 server';
    }
  }
  // The fs store wraps some write errors in a message that keeps the code but not the property.
  const code = systemCode(err) ?? /\b(E[A-Z]{3,})\b/.exec(reasonOf(err))?.[1];
  if (code === 'ENOSPC') return `free disk space under ${fsDir ?? 'the store'}`;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return `give the user running visync write access to ${fsDir ?? 'the store'}, or set sinks.fs.dir to a writable folder`;
  }
  return 'check sinks.fs.dir (or sinks.s3)';
}
