// Many accounts in the config, as an agency keeps them: accountsFrom (a folder of YAML files, a
// JSON or a CSV file), keys in mounted secret files (apiKeyFile, NAME_FILE), and per-account
// schedule, dataset and prefix. Real files in a temp folder, through the real loader.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  accountSettings,
  allAccountSettings,
  storeKey,
  warehouseKey,
} from '../src/config/account-settings.js';
import { parseCsv } from '../src/config/accounts-from.js';
import {
  ConfigError,
  parseConfig,
  readConfig,
  readConfigDetailed,
  readConfigWithoutKeys,
} from '../src/config/read-config.js';
import { scrubSecrets } from '../src/log.js';
import { tempDir } from './helpers/harness.js';

const KEY = 'sk-live-AGENCY-KEY-MUST-NOT-LEAK-7';
const BASE = 'https://visibility.example/api/v1';

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A config file in `dir` with `top` added; accounts only through accountsFrom unless given. */
function configIn(dir: string, top: string, sinks = 'sinks:\n  fs: { dir: ./data }\n'): string {
  return write(join(dir, 'visync.yaml'), `${top}${sinks}`);
}

function loadError(path: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    readConfig(path, env, () => {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ConfigError;
    expect(e.message).not.toContain(KEY);
    return e;
  }
  throw new Error('expected a ConfigError');
}

const account = (i: number) => ({
  name: `client-${String(i).padStart(4, '0')}`,
  apiKey: `\${CLIENT_KEY}`,
  baseUrl: BASE,
  ...(i % 2 === 0 ? { brands: [`ws_${i}`, `ws_${i}b`] } : {}),
  ...(i % 3 === 0 ? { schedule: { cron: '0 3 * * *', tz: 'America/New_York' } } : {}),
  ...(i % 5 === 0 ? { bigquery: { dataset: `client_${i}` } } : {}),
  requestsPerMinute: 60,
});

const BQ_SINKS =
  'sinks:\n  fs: { dir: ./data }\n  bigquery: { projectId: p, dataset: shared, location: EU }\n';

function expectThousand(path: string, label: string): void {
  const started = performance.now();
  const config = readConfig(path, { CLIENT_KEY: KEY }, () => {});
  const ms = performance.now() - started;
  // Reported, not asserted: wall-clock limits make flaky tests.
  console.info(`${label}: 1000 accounts loaded in ${ms.toFixed(0)} ms`);
  expect(config.accounts).toHaveLength(1000);
  expect(new Set(config.accounts.map((a) => a.name)).size).toBe(1000);
  const c30 = accountSettings(config, 'client-0030');
  expect(c30.schedule).toEqual({ cron: '0 3 * * *', tz: 'America/New_York' });
  expect(c30.sinks.bigquery).toEqual({ projectId: 'p', dataset: 'client_30', location: 'EU' });
  expect(c30.brands).toEqual(['ws_30', 'ws_30b']);
  expect(c30.requestsPerMinute).toBe(60);
  expect(accountSettings(config, 'client-0001').sinks.bigquery?.dataset).toBe('shared');
  expect(config.accounts.every((a) => a.apiKey === KEY)).toBe(true);
}

describe('accountsFrom: 1,000 accounts', () => {
  it('a folder of YAML files (one account per file), relative to the config file', () => {
    const dir = tempDir();
    for (let i = 0; i < 1000; i++)
      write(join(dir, 'accounts', `${account(i).name}.yaml`), stringify(account(i)));
    expectThousand(configIn(dir, 'accountsFrom: accounts\n', BQ_SINKS), 'YAML folder');
  });

  it('a JSON file (an array of account objects)', () => {
    const dir = tempDir();
    const accounts = Array.from({ length: 1000 }, (_, i) => account(i));
    write(join(dir, 'clients', 'accounts.json'), JSON.stringify(accounts, null, 2));
    expectThousand(configIn(dir, 'accountsFrom: ./clients/accounts.json\n', BQ_SINKS), 'JSON file');
  });

  it('a CSV file (header of account keys, nested keys dotted, brands `all` or `id;id`)', () => {
    const dir = tempDir();
    const header = 'name,apiKey,baseUrl,brands,requestsPerMinute,schedule.cron,schedule.tz,bigquery.dataset';
    const rows = Array.from({ length: 1000 }, (_, i) => {
      const a = account(i);
      return [
        a.name,
        a.apiKey,
        a.baseUrl,
        a.brands ? a.brands.join(';') : 'all',
        '60',
        a.schedule ? `"${a.schedule.cron}"` : '',
        a.schedule?.tz ?? '',
        a.bigquery?.dataset ?? '',
      ].join(',');
    });
    write(join(dir, 'accounts.csv'), `${header}\r\n${rows.join('\r\n')}\r\n`);
    expectThousand(configIn(dir, 'accountsFrom: accounts.csv\n', BQ_SINKS), 'CSV file');
  });
});

describe('accountsFrom: sources', () => {
  it('inline accounts come first; a YAML file may hold a list; hidden and non-YAML files are skipped', () => {
    const dir = tempDir();
    write(join(dir, 'accounts', 'agency.yml'), stringify([account(1), account(2)]));
    write(join(dir, 'accounts', 'solo.yaml'), stringify(account(3)));
    write(join(dir, 'accounts', 'notes.txt'), 'not an account');
    // A Kubernetes ConfigMap mount: `..data` links beside the files.
    write(join(dir, 'accounts', '..data', 'solo.yaml'), stringify(account(3)));
    write(join(dir, 'accounts', '.hidden.yaml'), stringify(account(4)));
    const path = configIn(
      dir,
      `accounts:\n  - { name: inline, apiKey: "\${CLIENT_KEY}", baseUrl: ${BASE} }\naccountsFrom: accounts\n`,
    );
    const loaded = readConfigDetailed(path, { CLIENT_KEY: KEY }, () => {});
    expect(loaded.config.accounts.map((a) => a.name)).toEqual([
      'inline',
      'client-0001',
      'client-0002',
      'client-0003',
    ]);
    expect(loaded.accountsFrom).toBe(join(dir, 'accounts'));
    expect(loaded.files.sort()).toEqual([
      join(dir, 'accounts', 'agency.yml'),
      join(dir, 'accounts', 'solo.yaml'),
    ]);
    expect(loaded.origins.get('inline')).toEqual({ where: 'accounts.0', keyVariable: 'CLIENT_KEY' });
    expect(loaded.origins.get('client-0002')?.where).toBe('accountsFrom: accounts/agency.yml: line 5');
    expect(loaded.origins.get('client-0003')?.where).toBe('accountsFrom: accounts/solo.yaml');
  });

  it('keys written as text in an accounts file: one warning for them all, without the keys', () => {
    const dir = tempDir();
    const rows = Array.from({ length: 5 }, (_, i) => `c${i},${KEY}${i},${BASE}`);
    write(join(dir, 'a.csv'), `name,apiKey,baseUrl\n${rows.join('\n')}\n`);
    const warnings: string[] = [];
    readConfig(configIn(dir, 'accountsFrom: a.csv\n'), {}, (w) => warnings.push(w));
    expect(warnings).toEqual([
      expect.stringMatching(
        /: accountsFrom: a\.csv: line 2: apiKey and 4 more: API keys are written in plain text; /,
      ),
    ]);
    expect(warnings.join('\n')).not.toContain(KEY);
  });

  it('${VAR} works in accounts files with the same rules, and in accountsFrom itself', () => {
    const dir = tempDir();
    write(
      join(dir, 'a', 'x.yaml'),
      `name: x\napiKey: \${X_KEY}\nbaseUrl: \${X_URL:-${BASE}}\nrequestsPerMinute: \${X_RPM}\nbrands: ["lit-$\${X}"]\n`,
    );
    const c = readConfig(configIn(dir, 'accountsFrom: ${ACCOUNTS}\n'), {
      ACCOUNTS: join(dir, 'a'),
      X_KEY: KEY,
      X_RPM: '30',
    });
    expect(c.accounts[0]).toMatchObject({
      apiKey: KEY,
      baseUrl: BASE,
      requestsPerMinute: 30,
      brands: ['lit-${X}'],
    });
  });

  it('an empty folder with no inline accounts, a missing path and an unknown extension are errors', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'empty'));
    expect(loadError(configIn(dir, 'accountsFrom: empty\n')).issues).toEqual([
      { path: 'accountsFrom', message: `expected at least one account: ${join(dir, 'empty')} holds none` },
    ]);
    expect(loadError(configIn(dir, 'accountsFrom: nope\n')).message).toBe(
      `${join(dir, 'visync.yaml')}: accountsFrom: cannot read ${join(dir, 'nope')}: no such file`,
    );
    write(join(dir, 'a.txt'), '');
    expect(loadError(configIn(dir, 'accountsFrom: a.txt\n')).issues[0]?.message).toMatch(
      /\.json file or a \.csv/,
    );
    expect(loadError(configIn(dir, '')).issues).toEqual([
      { path: 'accounts', message: 'required: expected a list of accounts (at least one), or accountsFrom' },
    ]);
  });
});

describe('accountsFrom: errors name the file, the line and the key, never the key value', () => {
  it('a YAML file: the file and the key, with the unset variable', () => {
    const dir = tempDir();
    write(join(dir, 'accounts', 'acme.yaml'), `name: acme\napiKey: \${ACME_KEY}\nbaseUrl: ${BASE}\n`);
    const path = configIn(dir, 'accountsFrom: accounts\n');
    expect(loadError(path).message).toBe(
      `${path}: accountsFrom: accounts/acme.yaml: apiKey: required: expected a non-empty API key, e.g. apiKey: \${ACME_API_KEY} (environment variable ACME_KEY is not set)`,
    );
  });

  it('a list in a YAML file: the line of the account; unknown keys get suggestions; overrides are validated', () => {
    const dir = tempDir();
    write(
      join(dir, 'agency.yaml'),
      [
        `- { name: ok, apiKey: ${KEY}, baseUrl: ${BASE} }`,
        '- name: bad',
        `  apikey: ${KEY}`,
        `  baseUrl: ${BASE}`,
        '  schedule: { cron: "0 2 * *", tz: Mars/Base }',
        '  bigquery: { datset: x }',
        '',
      ].join('\n'),
    );
    const e = loadError(configIn(dir, 'accountsFrom: agency.yaml\n', BQ_SINKS));
    const at = 'accountsFrom: agency.yaml: line 2';
    expect(e.issues).toEqual(
      expect.arrayContaining([
        { path: `${at}: apikey`, message: 'unknown key (did you mean apiKey?)' },
        { path: `${at}: schedule.cron`, message: expect.stringContaining('5 or 6 space-separated fields') },
        { path: `${at}: schedule.tz`, message: expect.stringContaining('unknown time zone "Mars/Base"') },
        { path: `${at}: bigquery.datset`, message: 'unknown key (did you mean dataset?)' },
      ]),
    );
    expect(JSON.stringify(e.issues)).not.toContain(KEY);
  });

  it('a CSV file: the line of the row and the column; a wrong cell count; an unknown column', () => {
    const dir = tempDir();
    write(
      join(dir, 'a.csv'),
      `name,apiKey,baseUrl,requestsPerMinute\nok,${KEY},${BASE},60\nbad,${KEY},${BASE},-1\nshort,${KEY}\n`,
    );
    const e = loadError(configIn(dir, 'accountsFrom: a.csv\n'));
    expect(e.issues).toEqual([
      { path: 'accountsFrom: a.csv: line 4', message: 'expected 4 cells as in the header row, found 2' },
      { path: 'accountsFrom: a.csv: line 3: requestsPerMinute', message: 'expected a positive integer' },
    ]);
    write(join(dir, 'b.csv'), `name,apiKey,baseUrl,schedule.timezone\nx,${KEY},${BASE},UTC\n`);
    expect(loadError(configIn(dir, 'accountsFrom: b.csv\n')).issues).toEqual([
      {
        path: 'accountsFrom: b.csv: line 2: schedule.timezone',
        message: expect.stringMatching(/^unknown key/),
      },
    ]);
  });

  it('a JSON file: the line of the object; a syntax error names its line', () => {
    const dir = tempDir();
    write(
      join(dir, 'a.json'),
      JSON.stringify(
        [
          { name: 'ok', apiKey: KEY, baseUrl: BASE },
          { name: 'Bad', apiKey: KEY, baseUrl: BASE },
        ],
        null,
        2,
      ),
    );
    expect(loadError(configIn(dir, 'accountsFrom: a.json\n')).issues).toEqual([
      { path: 'accountsFrom: a.json: line 7: name', message: expect.stringContaining('lowercase letters') },
    ]);
    write(join(dir, 'b.json'), `[\n  {"name": "x", "apiKey": "${KEY}",,}\n]\n`);
    const e = loadError(configIn(dir, 'accountsFrom: b.json\n'));
    expect(e.issues[0]?.path).toBe('accountsFrom: b.json');
    expect(e.issues[0]?.message).toMatch(/^line 2, column \d+: JSON syntax error/);
  });

  it('problems in the config file and in the accounts files show in one go', () => {
    const dir = tempDir();
    write(join(dir, 'accounts', 'a.yaml'), `name: a\napiKey: k1k1\nbaseUrl: ${BASE}\nbrnds: all\n`);
    const e = loadError(configIn(dir, 'accountsFrom: accounts\nextract: { concurrency: 0 }\n'));
    expect(e.issues.map((i) => i.path)).toEqual([
      'extract.concurrency',
      'accountsFrom: accounts/a.yaml: brnds',
    ]);
  });

  it('duplicate names across sources name both places', () => {
    const dir = tempDir();
    write(join(dir, 'accounts', 'a.yaml'), `name: acme\napiKey: k1k1\nbaseUrl: ${BASE}\n`);
    write(join(dir, 'accounts', 'b.yaml'), `name: acme\napiKey: k2k2\nbaseUrl: ${BASE}\n`);
    const path = configIn(
      dir,
      `accounts:\n  - { name: acme, apiKey: k0k0, baseUrl: ${BASE} }\naccountsFrom: accounts\n`,
    );
    expect(loadError(path).issues).toEqual([
      {
        path: 'accountsFrom: accounts/a.yaml: name',
        message: 'duplicate account name acme; names must be unique (also at accounts.0)',
      },
      {
        path: 'accountsFrom: accounts/b.yaml: name',
        message: 'duplicate account name acme; names must be unique (also at accounts.0)',
      },
    ]);
  });

  it('a per-account dataset, prefix or folder needs that sink at the top', () => {
    const dir = tempDir();
    write(
      join(dir, 'a.yaml'),
      `- { name: a, apiKey: k1k1, baseUrl: ${BASE}, bigquery: { dataset: d }, s3: { prefix: p/ } }\n`,
    );
    const e = loadError(configIn(dir, 'accountsFrom: a.yaml\n'));
    expect(e.issues.map((i) => i.path)).toEqual([
      'accountsFrom: a.yaml: line 1: bigquery',
      'accountsFrom: a.yaml: line 1: s3',
    ]);
    expect(e.issues[0]?.message).toMatch(/^needs sinks\.bigquery/);
  });
});

describe('keys in files: apiKeyFile and NAME_FILE', () => {
  it('apiKeyFile reads the key (trailing newline trimmed), relative to the file naming it', () => {
    const dir = tempDir();
    write(join(dir, 'secrets', 'acme'), `${KEY}\n`);
    write(join(dir, 'accounts', 'acme.yaml'), `name: acme\napiKeyFile: ../secrets/acme\nbaseUrl: ${BASE}\n`);
    const path = configIn(
      dir,
      `accounts:\n  - { name: inline, apiKeyFile: secrets/acme, baseUrl: ${BASE} }\naccountsFrom: accounts\n`,
    );
    const loaded = readConfigDetailed(path, {}, () => {});
    expect(loaded.config.accounts.map((a) => [a.name, a.apiKey, a.apiKeyFile])).toEqual([
      ['inline', KEY, join(dir, 'secrets', 'acme')],
      ['acme', KEY, join(dir, 'secrets', 'acme')],
    ]);
    expect(loaded.origins.get('acme')?.keyFile).toBe(join(dir, 'secrets', 'acme'));
    // Registered with the log scrubber like any key.
    expect(scrubSecrets(`calling with ${KEY}`)).not.toContain(KEY);
  });

  it('a missing, empty or doubled key file is an error naming the key and the path, never the content', () => {
    const dir = tempDir();
    write(join(dir, 'empty'), '\n');
    write(join(dir, 'key'), KEY);
    const path = configIn(
      dir,
      [
        'accounts:',
        `  - { name: a, apiKeyFile: /nonexistent/a, baseUrl: ${BASE} }`,
        `  - { name: b, apiKeyFile: empty, baseUrl: ${BASE} }`,
        `  - { name: c, apiKeyFile: key, apiKey: "\${C_KEY}", baseUrl: ${BASE} }`,
        '',
      ].join('\n'),
    );
    expect(loadError(path, { C_KEY: KEY }).issues).toEqual([
      { path: 'accounts.0.apiKeyFile', message: 'cannot read the key file /nonexistent/a: no such file' },
      { path: 'accounts.1.apiKeyFile', message: `the key file ${join(dir, 'empty')} is empty` },
      { path: 'accounts.2.apiKeyFile', message: 'set either apiKey or apiKeyFile, not both' },
    ]);
  });

  it('commands that never call the API accept an unreadable key file', () => {
    const dir = tempDir();
    const path = configIn(dir, `accounts:\n  - { name: a, apiKeyFile: /nonexistent/a, baseUrl: ${BASE} }\n`);
    const prev = process.env.VISYNC_CONFIG;
    const c = readConfigWithoutKeys(path);
    expect(c.accounts[0]?.name).toBe('a');
    expect(process.env.VISYNC_CONFIG).toBe(prev);
  });

  it('commands that never call the API accept a NAME_FILE that cannot be read, for a key only', () => {
    const text = `accounts:\n  - { name: a, apiKey: "\${A_KEY}", baseUrl: ${BASE} }\nredis: { url: "\${R_URL}" }\nsinks: { fs: {} }\n`;
    const env = { A_KEY_FILE: '/nonexistent/a' };
    expect(parseConfig(text, { source: 'ops.yaml', env, apiKeys: 'unused' }).accounts[0]?.name).toBe('a');
    expect(() =>
      parseConfig(text, {
        source: 'ops.yaml',
        env: { ...env, R_URL_FILE: '/nonexistent/r' },
        apiKeys: 'unused',
      }),
    ).toThrow(
      'ops.yaml: redis.url: environment variable R_URL is not set and R_URL_FILE names /nonexistent/r, which cannot be read (no such file)',
    );
    expect(() => parseConfig(text, { source: 'ops.yaml', env })).toThrow(
      /accounts\.0\.apiKey: .*A_KEY_FILE names \/nonexistent\/a/,
    );
  });

  it('${NAME} reads the file NAME_FILE names when NAME is unset; NAME wins when both are set', () => {
    const dir = tempDir();
    const secret = write(join(dir, 'run-secrets', 'acme'), `${KEY}\n`);
    const path = configIn(
      dir,
      `accounts:\n  - { name: acme, apiKey: "\${ACME_API_KEY}", baseUrl: ${BASE} }\nredis: { url: "\${REDIS_URL:-redis://default:6379}" }\n`,
    );
    const c = readConfig(path, { ACME_API_KEY_FILE: secret }, () => {});
    expect(c.accounts[0]?.apiKey).toBe(KEY);
    expect(c.redis.url).toBe('redis://default:6379');
    expect(scrubSecrets(KEY)).not.toContain(KEY);
    expect(
      readConfig(path, { ACME_API_KEY: 'from-env', ACME_API_KEY_FILE: secret }, () => {}).accounts[0]?.apiKey,
    ).toBe('from-env');
    // A NAME_FILE that cannot be read is an error at the key that references NAME.
    const e = loadError(path, { ACME_API_KEY_FILE: join(dir, 'missing') });
    expect(e.issues).toEqual([
      {
        path: 'accounts.0.apiKey',
        message: `environment variable ACME_API_KEY is not set and ACME_API_KEY_FILE names ${join(dir, 'missing')}, which cannot be read (no such file)`,
      },
    ]);
  });
});

describe('effective settings of an account', () => {
  const dir = tempDir();
  const path = write(
    join(dir, 'visync.yaml'),
    `accounts:
  - { name: plain, apiKey: k1k1, baseUrl: ${BASE} }
  - name: berlin
    apiKey: k2k2
    baseUrl: ${BASE}
    brands: [ws_1]
    requestsPerMinute: 30
    schedule: { tz: Europe/Berlin }
    bigquery: { dataset: berlin_vis }
    s3: { prefix: clients/berlin }
  - { name: shared, apiKey: k3k3, baseUrl: ${BASE}, s3: { prefix: "" } }
schedule:
  nightly: { cron: "0 2 * * *", tz: UTC }
sinks:
  s3: { bucket: b, prefix: visibility/, region: eu-west-1 }
  bigquery: { projectId: p, dataset: vis, location: EU }
`,
  );
  const config = readConfig(path, {}, () => {});

  it('the top-level settings when the account overrides nothing', () => {
    expect(accountSettings(config, 'plain')).toEqual({
      account: config.accounts[0],
      schedule: { cron: '0 2 * * *', tz: 'UTC' },
      sinks: config.sinks,
      brands: 'all',
      requestsPerMinute: undefined,
    });
  });

  it("the account's own schedule (field by field), dataset, prefix, brands and limit", () => {
    const s = accountSettings(config, 'berlin');
    expect(s.schedule).toEqual({ cron: '0 2 * * *', tz: 'Europe/Berlin' });
    expect(s.sinks.bigquery).toEqual({ projectId: 'p', dataset: 'berlin_vis', location: 'EU' });
    expect(s.sinks.s3).toMatchObject({ bucket: 'b', prefix: 'clients/berlin/', region: 'eu-west-1' });
    expect(s.brands).toEqual(['ws_1']);
    expect(s.requestsPerMinute).toBe(30);
    // An empty prefix puts the account at the bucket's root.
    expect(accountSettings(config, 'shared').sinks.s3?.prefix).toBe('');
    // The config itself is unchanged.
    expect(config.sinks.s3?.prefix).toBe('visibility/');
  });

  it('one store and one loader per distinct sinks', () => {
    const all = allAccountSettings(config);
    expect(new Set(all.map((s) => storeKey(s.sinks))).size).toBe(3);
    expect(new Set(all.map((s) => warehouseKey(s.sinks))).size).toBe(2);
  });

  it('an unknown account is an error naming the configured ones', () => {
    expect(() => accountSettings(config, 'nope')).toThrow(
      'unknown account nope: the config has plain, berlin, shared',
    );
  });
});

describe('the example config', () => {
  it('its CSV example loads as written', () => {
    const example = readFileSync(new URL('../config/visync.example.yaml', import.meta.url), 'utf8');
    const csv = example
      .split('\n')
      .filter((l) => l.startsWith('#       '))
      .map((l) => l.slice('#       '.length))
      .join('\n');
    expect(csv).toMatch(/^name,apiKeyFile,/);
    const dir = tempDir();
    write(join(dir, 'accounts.csv'), `${csv}\n`);
    // The key file of the example does not exist here: a command that never calls the API accepts that.
    const c = readConfigWithoutKeys(configIn(dir, 'accountsFrom: accounts.csv\n', BQ_SINKS));
    const acme = accountSettings(c, 'acme');
    expect(acme.schedule).toEqual({ cron: '0 2 * * *', tz: 'America/New_York' });
    expect(acme.sinks.bigquery?.dataset).toBe('client_acme');
    expect(acme.brands).toBe('all');
  });
});

describe('parseCsv', () => {
  it('quoted cells with commas, quotes and line breaks; CRLF; a BOM; the line of each row', () => {
    const r = parseCsv('\ufeffa,b\r\n"x,1","say ""hi"""\r\n"multi\nline",z\nlast,');
    expect(r).toEqual({
      rows: [
        { line: 1, cells: ['a', 'b'] },
        { line: 2, cells: ['x,1', 'say "hi"'] },
        { line: 3, cells: ['multi\nline', 'z'] },
        { line: 5, cells: ['last', ''] },
      ],
    });
    expect(parseCsv('a,"b\n')).toEqual({ error: 'unterminated quoted cell', line: 1 });
  });
});
