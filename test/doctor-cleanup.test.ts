// `visync doctor` run as a user runs it (a real process) leaves nothing in the sink: its probe
// object is deleted, and on disk the `_doctor/` folder it made for it goes too.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../src/sinks/s3-store.js';
import { runVisync } from './helpers/cli-process.js';
import { configYaml, sim, tempDir } from './helpers/harness.js';
import { startS3rver } from './helpers/s3rver.js';
import { writeConfig } from './helpers/worker-process.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

describe('visync doctor leaves nothing behind', () => {
  it('fs: the data folder holds after doctor what it held before (an empty one stays empty, a run folder stays)', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const data = join(dir, 'data');
    const { yaml, env } = configYaml(s, dir, { sinks: { fs: { dir: data } } });
    const cfg = writeConfig(dir, yaml);

    const first = await runVisync(['--config', cfg, 'doctor'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^PASS object store: wrote, read back and deleted a probe object in /m);
    expect(readdirSync(data)).toEqual([]);

    // A folder of the store's own is kept: only folders the probe left empty go.
    mkdirSync(join(data, 'runs'));
    const second = await runVisync(['--config', cfg, 'doctor'], env);
    expect(second.code).toBe(0);
    expect(readdirSync(data, { recursive: true })).toEqual(['runs']);
  });

  it('S3 (s3rver): no object is left in the bucket', async () => {
    const s3 = await startS3rver({ buckets: ['lake'] });
    closers.push(() => s3.close());
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const sink = {
      bucket: 'lake',
      prefix: 'visync',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      maxAttempts: 1,
    };
    const { yaml, env } = configYaml(s, dir, { sinks: { s3: sink } });
    const cfg = writeConfig(dir, yaml);

    const c = await runVisync(['--config', cfg, 'doctor'], env);
    expect(c.code).toBe(0);
    expect(c.stdout).toContain(
      'PASS object store: wrote, read back and deleted a probe object in s3://lake/visync/',
    );
    expect(s3.requests.some((r) => r.method === 'PUT' && r.url.includes('_doctor/'))).toBe(true);
    const bucket = new S3ObjectStore({ ...sink, prefix: '', region: 'us-east-1', requestTimeoutSeconds: 10 });
    closers.push(() => bucket.close());
    expect(await bucket.list('')).toEqual([]);
  });
});
