// watchConfig against real files: accounts added, removed and changed in an accountsFrom folder
// are handed on without a restart; an invalid edit is logged once and the config in force stays.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Config } from '../src/config/schema.js';
import { type AccountChanges, type ConfigWatcher, watchConfig } from '../src/config/watch.js';
import { memoryLogger, tempDir } from './helpers/harness.js';
import { until } from './helpers/jobs.js';

const BASE = 'https://visibility.example/api/v1';
const ENV = { CLIENT_KEY: 'sk-live-WATCHED-KEY-1234' };

const watchers: ConfigWatcher[] = [];
afterEach(() => {
  while (watchers.length) watchers.pop()?.close();
});

function setup() {
  const dir = tempDir();
  const accounts = join(dir, 'accounts');
  const put = (name: string, extra: Record<string, unknown> = {}) =>
    writeFileSync(
      join(accounts, `${name}.yaml`),
      stringify({ name, apiKey: '${CLIENT_KEY}', baseUrl: BASE, ...extra }),
    );
  const path = join(dir, 'visync.yaml');
  writeFileSync(path, 'accountsFrom: accounts\nsinks:\n  fs: { dir: ./data }\n');
  mkdirSync(accounts);
  put('acme');
  return { dir, accounts, path, put };
}

function start(path: string, options: { pollMs?: number; useFsWatch?: boolean } = {}) {
  const { logger, lines } = memoryLogger('info');
  const seen: { config: Config; changes: AccountChanges }[] = [];
  const w = watchConfig(path, (config, changes) => void seen.push({ config, changes }), {
    env: ENV,
    logger,
    debounceMs: 20,
    pollMs: options.pollMs ?? 0,
    ...(options.useFsWatch === undefined ? {} : { useFsWatch: options.useFsWatch }),
  });
  watchers.push(w);
  return { w, seen, lines };
}

describe('watchConfig', () => {
  it('fs.watch: a file added, changed and removed in the accounts folder, each handed on once settled', async () => {
    const { path, put, accounts } = setup();
    const { w, seen } = start(path);
    expect(w.current.config.accounts.map((a) => a.name)).toEqual(['acme']);

    put('beta');
    await until('beta added', async () => seen.length >= 1);
    expect(seen.at(-1)?.changes).toEqual({ added: ['beta'], removed: [], changed: [] });
    expect(seen.at(-1)?.config.accounts.map((a) => a.name)).toEqual(['acme', 'beta']);

    put('beta', { schedule: { tz: 'Asia/Tokyo' } });
    await until('beta changed', async () => seen.length >= 2);
    expect(seen.at(-1)?.changes).toEqual({ added: [], removed: [], changed: ['beta'] });

    rmSync(join(accounts, 'acme.yaml'));
    await until('acme removed', async () => seen.length >= 3);
    expect(seen.at(-1)?.changes).toEqual({ added: [], removed: ['acme'], changed: [] });
    expect(w.current.config.accounts.map((a) => a.name)).toEqual(['beta']);
  });

  it('an invalid edit: one log line naming file and key, the old config stays; the fix is handed on', async () => {
    const { path, put, accounts } = setup();
    const { w, seen, lines } = start(path, { pollMs: 25, useFsWatch: false });
    writeFileSync(
      join(accounts, 'bad.yaml'),
      stringify({ name: 'bad', baseUrl: BASE, apiKey: '${NOT_SET}' }),
    );
    await until('the invalid config is logged', async () =>
      lines.some((l) => l.includes('keeping the config')),
    );
    // More re-reads see the same problem: still one line.
    await w.reload();
    await w.reload();
    const warnings = lines.filter((l) => l.includes('keeping the config'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'accountsFrom: accounts/bad.yaml: apiKey: required: expected a non-empty API key, e.g. apiKey: ${ACME_API_KEY} (environment variable NOT_SET is not set)',
    );
    expect(seen).toEqual([]);
    expect(w.current.config.accounts.map((a) => a.name)).toEqual(['acme']);

    put('bad');
    await until('the fixed config is handed on', async () => seen.length === 1);
    expect(seen[0]?.changes).toEqual({ added: ['bad'], removed: [], changed: [] });
    expect(lines.join('\n')).not.toContain(ENV.CLIENT_KEY);
  });

  it('the periodic re-read alone (no fs.watch) picks up a change to the config file itself', async () => {
    const { path } = setup();
    const { seen } = start(path, { pollMs: 25, useFsWatch: false });
    writeFileSync(
      path,
      `accounts:\n  - { name: inline, apiKey: "\${CLIENT_KEY}", baseUrl: ${BASE} }\naccountsFrom: accounts\nsinks:\n  fs: { dir: ./data }\n`,
    );
    await until('inline added', async () => seen.length === 1);
    expect(seen[0]?.changes.added).toEqual(['inline']);
  });

  it('a changed top-level schedule changes every account that has none of its own', async () => {
    const { path, put } = setup();
    put('tokyo', { schedule: { cron: '0 4 * * *', tz: 'Asia/Tokyo' } });
    const { w, seen } = start(path, { useFsWatch: false });
    writeFileSync(
      path,
      'accountsFrom: accounts\nschedule: { nightly: { cron: "0 3 * * *" } }\nsinks:\n  fs: { dir: ./data }\n',
    );
    await w.reload();
    expect(seen[0]?.changes).toEqual({ added: [], removed: [], changed: ['acme'] });
  });

  it('a rotated key in an apiKeyFile is picked up by the periodic re-read; the key is never logged', async () => {
    const { path, put, dir } = setup();
    const keyFile = join(dir, 'acme.key');
    writeFileSync(keyFile, 'sk-live-FIRST-KEY-0001\n');
    put('acme', { apiKey: undefined, apiKeyFile: '../acme.key' });
    const { w, seen, lines } = start(path, { pollMs: 25, useFsWatch: false });
    expect(w.current.config.accounts[0]?.apiKey).toBe('sk-live-FIRST-KEY-0001');
    writeFileSync(keyFile, 'sk-live-SECOND-KEY-000002\n');
    await until('the new key is handed on', async () => seen.length === 1);
    expect(seen[0]?.changes).toEqual({ added: [], removed: [], changed: ['acme'] });
    expect(seen[0]?.config.accounts[0]?.apiKey).toBe('sk-live-SECOND-KEY-000002');
    expect(lines.join('\n')).not.toMatch(/sk-live-(FIRST|SECOND)/);
  });

  it('onReloadFailure: told once when a reload is refused or cannot be applied, and once when one succeeds', async () => {
    const { path, put } = setup();
    const { logger } = memoryLogger('info');
    const told: (string | undefined)[] = [];
    let applyFails = false;
    const w = watchConfig(
      path,
      () => {
        if (applyFails) throw new Error('Redis went away');
      },
      {
        env: ENV,
        logger,
        pollMs: 0,
        useFsWatch: false,
        onReloadFailure: (reason) => void told.push(reason),
      },
    );
    watchers.push(w);
    put('acme', { schedule: { cron: '61 2 * * *' } });
    await w.reload();
    await w.reload();
    expect(told).toEqual([
      expect.stringMatching(/^the new config is invalid: .*schedule\.cron: minute 61 is out of range 0-59$/),
    ]);
    applyFails = true;
    put('acme', { schedule: { cron: '1 2 * * *' } });
    await w.reload();
    expect(told.at(-1)).toBe('applying the new config failed: Redis went away');
    applyFails = false;
    put('acme', { schedule: { cron: '2 2 * * *' } });
    await w.reload();
    expect(told).toHaveLength(3);
    expect(told.at(-1)).toBeUndefined();
  });
});
