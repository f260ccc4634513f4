// config/visync.example.yaml as a newcomer uses it (README, "Connect your account"): copied to
// config/visync.yaml, its baseUrl and key pointed at an account, and `visync run` in that folder.
// It must run as copied: Redis is opt-in, so no REDIS_URL and no Redis server are needed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config/read-config.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';

const ROOT = join(import.meta.dirname, '..');
const EXAMPLE = join(ROOT, 'config', 'visync.example.yaml');

/** The environment of this test process without any Redis address. */
function envWithoutRedis(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('REDIS') && !k.startsWith('VISYNC_')) env[k] = v;
  }
  return { ...env, ...extra };
}

describe('config/visync.example.yaml', () => {
  it('copied to config/visync.yaml and pointed at an account, `visync run` syncs it without Redis', async () => {
    const s = await h.sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = h.tempDir();
    mkdirSync(join(dir, 'config'));
    const config = join(dir, 'config', 'visync.yaml');
    copyFileSync(EXAMPLE, config);
    // The one edit a newcomer makes: the API address (here the simulator's, on loopback).
    const text = readFileSync(config, 'utf8');
    expect(text).toContain('baseUrl: https://visibility.example/api/v1');
    writeFileSync(config, text.replace('baseUrl: https://visibility.example/api/v1', `baseUrl: ${s.url}`));
    const key = s.accounts[0]!.keys[0]!;
    // Redis off as written (a Redis answering on this machine's default port would otherwise hide it).
    expect(readConfig(config, envWithoutRedis({ ACME_API_KEY: key })).redis.url).toBeUndefined();

    // Only the bin and the folder: the child's environment holds no REDIS_URL, and it finds
    // config/visync.yaml by the default location.
    const run = startProcess(NODE22, [builtVisync().bin, 'run', '--log-format', 'json'], {
      cwd: dir,
      env: envWithoutRedis({ ACME_API_KEY: key }),
      guardMs: 90_000,
    });
    const { code, stderr } = await run.exited;
    expect(stderr).not.toMatch(/redis/i);
    expect(code).toBe(0);

    // The files land in ./data, as the example's sinks.fs says, and the run is recorded there.
    const runs = spawnSync(NODE22, [builtVisync().bin, 'runs', '--json'], {
      cwd: dir,
      env: envWithoutRedis({ ACME_API_KEY: 'unused' }),
      encoding: 'utf8',
    });
    expect(runs.status).toBe(0);
    const listed = JSON.parse(runs.stdout) as { account: string; status: string }[];
    expect(listed).toEqual([expect.objectContaining({ account: 'acme', status: 'succeeded' })]);
    expect(h.listFiles(join(dir, 'data')).some((f) => f.includes('account=acme'))).toBe(true);
  });

  it('the copy, config/visync.yaml, is ignored by git', () => {
    const r = spawnSync('git', ['check-ignore', '--no-index', 'config/visync.yaml'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.stdout.trim()).toBe('config/visync.yaml');
  });
});
