// `run --once` with per-account sinks, as an agency configures them: each client's data in its own
// BigQuery dataset (fake BigQuery server, real client) and under its own S3 prefix (s3rver) or
// folder, with accounts read from accountsFrom.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseConfig } from '../src/config/read-config.js';
import { RunLoaders } from '../src/run/warehouse.js';
import { createObjectStore, ObjectStores } from '../src/sinks/create-store.js';
import { startFakeBigQuery } from './fakes/bigquery-server.js';
import { configFile, listFiles, runOnceCli, sim, tempDir, visyncCli } from './helpers/harness.js';
import { jobsConfigFile, worker } from './helpers/jobs.js';
import { startS3rver } from './helpers/s3rver.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

const TWO = [
  { name: 'acme', workspaces: 2 },
  { name: 'beta', workspaces: 1 },
];

describe('ObjectStores and RunLoaders', () => {
  it('one store per distinct folder and one loader per dataset, shared by accounts and across reloads', async () => {
    const dir = tempDir();
    const config = parseConfig(
      `accounts:
  - { name: a, apiKey: k1k1, baseUrl: https://x.example }
  - { name: b, apiKey: k2k2, baseUrl: https://x.example }
  - { name: c, apiKey: k3k3, baseUrl: https://x.example, fs: { dir: ${join(dir, 'c')} }, bigquery: { dataset: dc } }
sinks: { fs: { dir: ${dir} }, bigquery: { projectId: p, dataset: d, apiEndpoint: "http://127.0.0.1:1" } }
`,
      { source: 'mem.yaml', env: {} },
    );
    const stores = new ObjectStores();
    const loaders = new RunLoaders();
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => stores.forAccount(config, n)));
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(c!.location).toContain(join(dir, 'c'));
    expect((await loaders.forAccount(config, 'a'))?.describe?.()).toBe('BigQuery dataset p:d');
    expect(await loaders.forAccount(config, 'b')).toBe(await loaders.forAccount(config, 'a'));
    expect((await loaders.forAccount(config, 'c'))?.describe?.()).toBe('BigQuery dataset p:dc');
    // A reloaded config with the same settings gets the same store.
    const reloaded = { ...config, accounts: config.accounts.map((x) => ({ ...x })) };
    expect(await stores.forAccount(reloaded, 'a')).toBe(a);
    await stores.close();
  });
});

describe('run --once: per-account sinks', () => {
  it('two accounts with their own datasets load each into its own dataset', async () => {
    const s = await sim({ accounts: TWO });
    const bq = await startFakeBigQuery();
    closers.push(() => bq.close());
    const dir = tempDir();
    const c = await runOnceCli(s, dir, [], {
      accounts: {
        acme: { bigquery: { dataset: 'client_acme' } },
        beta: { bigquery: { dataset: 'client_beta' } },
      },
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'shared', apiEndpoint: bq.url } },
    });
    expect(c.code, c.err.join('\n')).toBe(0);
    const accountsIn = (dataset: string, table: string) =>
      new Set(bq.rows('p', dataset, table).map((r) => r.account));
    expect(accountsIn('client_acme', 'brands')).toEqual(new Set(['acme']));
    expect(accountsIn('client_beta', 'brands')).toEqual(new Set(['beta']));
    expect(bq.rows('p', 'client_acme', 'brands')).toHaveLength(2);
    expect(accountsIn('client_acme', 'sync_runs')).toEqual(new Set(['acme']));
    expect(accountsIn('client_beta', 'sync_runs')).toEqual(new Set(['beta']));
    // The top-level dataset holds nothing: no account loads into it.
    expect(bq.datasets.has('p:shared')).toBe(false);
  });

  it('an account without its own dataset loads into the top-level one', async () => {
    const s = await sim({ accounts: TWO });
    const bq = await startFakeBigQuery();
    closers.push(() => bq.close());
    const dir = tempDir();
    const c = await runOnceCli(s, dir, [], {
      accounts: { beta: { bigquery: { dataset: 'client_beta' } } },
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'shared', apiEndpoint: bq.url } },
    });
    expect(c.code, c.err.join('\n')).toBe(0);
    expect(new Set(bq.rows('p', 'shared', 'brands').map((r) => r.account))).toEqual(new Set(['acme']));
    expect(new Set(bq.rows('p', 'client_beta', 'brands').map((r) => r.account))).toEqual(new Set(['beta']));
  });

  it('two S3 prefixes: each account writes under its own, and the summary names it', async () => {
    const s3 = await startS3rver({ buckets: ['agency'] });
    closers.push(() => s3.close());
    const s = await sim({ accounts: TWO });
    const dir = tempDir();
    const base = { bucket: 'agency', prefix: 'visibility/', endpoint: s3.endpoint, forcePathStyle: true };
    const c = await runOnceCli(s, dir, [], {
      accounts: { acme: { s3: { prefix: 'clients/acme' } } },
      sinks: { s3: base },
    });
    expect(c.code, c.err.join('\n')).toBe(0);
    expect(c.out.find((l) => l.startsWith('acme:'))).toMatch(
      /manifest s3:\/\/agency\/clients\/acme\/runs\/account=acme\//,
    );
    expect(c.out.find((l) => l.startsWith('beta:'))).toMatch(
      /manifest s3:\/\/agency\/visibility\/runs\/account=beta\//,
    );
    const keysUnder = async (prefix: string) => {
      const store = await createObjectStore({
        s3: { ...base, prefix, region: 'us-east-1', requestTimeoutSeconds: 60, maxAttempts: 5 },
      });
      const keys = await store.list('');
      store.close?.();
      return keys;
    };
    const acme = await keysUnder('clients/acme/');
    const beta = await keysUnder('visibility/');
    expect(acme.some((k) => k.startsWith('runs/account=acme/'))).toBe(true);
    expect(acme.some((k) => k.includes('account=beta'))).toBe(false);
    expect(beta.some((k) => k.startsWith('runs/account=beta/'))).toBe(true);
    expect(beta.some((k) => k.includes('account=acme'))).toBe(false);
  });

  it('accounts from a folder, each with its own fs folder; a second run writes again under its own folder', async () => {
    const s = await sim({ accounts: TWO });
    const dir = tempDir();
    const { path, env } = configFile(s, dir, { sinks: { fs: { dir: join(dir, 'data') } } });
    // The accounts move out of the config file into accounts/, each with its own folder.
    mkdirSync(join(dir, 'accounts'));
    for (const a of s.accounts) {
      const envName = Object.keys(env).find((k) => k.includes(a.name.toUpperCase()))!;
      writeFileSync(
        join(dir, 'accounts', `${a.name}.yaml`),
        stringify({
          name: a.name,
          apiKey: `\${${envName}}`,
          baseUrl: s.url,
          fs: { dir: join(dir, 'client-data', a.name) },
        }),
      );
    }
    const yaml = readFileSync(path, 'utf8');
    writeFileSync(path, yaml.replace(/^accounts:\n(?: {2}- .*\n| {4}.*\n)+/m, 'accountsFrom: accounts\n'));
    const first = await visyncCli(path, ['run', '--once', '--log-level', 'silent']);
    expect(first.code, first.err.join('\n')).toBe(0);
    expect(listFiles(join(dir, 'client-data', 'acme')).some((f) => f.startsWith('runs/account=acme/'))).toBe(
      true,
    );
    expect(listFiles(join(dir, 'client-data', 'beta')).some((f) => f.startsWith('runs/account=beta/'))).toBe(
      true,
    );
    expect(listFiles(join(dir, 'client-data', 'acme')).some((f) => f.includes('account=beta'))).toBe(false);
    // A second run of one account writes again under its own folder.
    const second = await visyncCli(path, ['run', '--once', '--log-level', 'silent', '--account', 'beta']);
    expect(second.code).toBe(0);
    expect(second.out[0]).toMatch(
      new RegExp(`^beta: succeeded .*manifest ${join(dir, 'client-data', 'beta')}`),
    );
    // --plan reads each account's last success from the manifests in its own folder.
    const plan = await visyncCli(path, ['run', '--once', '--plan', '--json']);
    expect(plan.code, plan.err.join('\n')).toBe(0);
    const accounts = (
      JSON.parse(plan.out.join('\n')) as { accounts: { account: string; window: { why: string } }[] }
    ).accounts;
    expect(accounts.map((a) => a.account)).toEqual(['acme', 'beta']);
    for (const a of accounts)
      expect(a.window.why).toMatch(/^extract\.visibilityDays: the last success \d{4}-\d\d-\d\d is recent$/);

    // `runs` lists the runs of both folders; `replay` finds a run in its account's folder.
    const runs = await visyncCli(path, ['runs', '--json']);
    expect(runs.code, runs.err.join('\n')).toBe(0);
    const rows = JSON.parse(runs.out.join('\n')) as { account: string; run_id: string }[];
    expect(rows.map((r) => r.account).sort()).toEqual(['acme', 'beta', 'beta']);
    const acmeRun = rows.find((r) => r.account === 'acme')!.run_id;
    const replay = await visyncCli(path, ['replay', '--run', acmeRun, '--log-level', 'silent']);
    expect(replay.code, replay.err.join('\n')).toBe(0);
    expect(replay.out[0]).toMatch(new RegExp(`^acme: replayed run ${acmeRun}: succeeded`));
  });
});

describe('queued runs with per-account sinks', () => {
  it('a worker writes each account under its own folder and loads it into its own dataset', async () => {
    const s = await sim({ accounts: TWO });
    const bq = await startFakeBigQuery();
    closers.push(() => bq.close());
    const dir = tempDir();
    const { config, path } = jobsConfigFile(s, dir, {
      accounts: {
        acme: { bigquery: { dataset: 'client_acme' }, fs: { dir: join(dir, 'acme') } },
        beta: { bigquery: { dataset: 'client_beta' }, fs: { dir: join(dir, 'beta') } },
      },
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'shared', apiEndpoint: bq.url } },
    });
    await worker(config);
    const c = await visyncCli(path, ['enqueue', 'sync', '--wait', '--timeout', '60']);
    expect(c.code, [...c.out, ...c.err].join('\n')).toBe(0);
    for (const a of ['acme', 'beta']) {
      const files = listFiles(join(dir, a));
      expect(files.some((f) => f.startsWith(`runs/account=${a}/`))).toBe(true);
      expect(files.some((f) => f.includes(`account=${a === 'acme' ? 'beta' : 'acme'}`))).toBe(false);
      expect(new Set(bq.rows('p', `client_${a}`, 'sync_runs').map((r) => r.account))).toEqual(new Set([a]));
    }
    expect(listFiles(dir).some((f) => f.startsWith('runs/'))).toBe(false);
    expect(bq.datasets.has('p:shared')).toBe(false);
  });
});
