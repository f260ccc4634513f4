import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lowContrastColours } from '../src/config/colour-warnings.js';
import { interpolateEnv } from '../src/config/interpolate.js';
import { suggest } from '../src/config/issues.js';
import { ConfigError, parseConfig, readConfig, resolveConfigPath } from '../src/config/read-config.js';
import type { Config } from '../src/config/schema.js';
import { defaultReportSettings } from '../src/report/settings.js';
import { AA_TEXT, ratioOnWhite } from '../src/util/contrast.js';
import { visyncCli } from './helpers/harness.js';

const SOURCE = 'test.yaml';
const SECRET = 'sk-live-THIS-MUST-NOT-LEAK-42';

function minimal(extra = '', account = ''): string {
  return `accounts:
  - name: acme
    apiKey: \${ACME_API_KEY}
    baseUrl: https://visibility.example/api/v1
${account}sinks:
  fs: {}
${extra}`;
}

function parse(text: string, env: NodeJS.ProcessEnv = { ACME_API_KEY: SECRET }) {
  return parseConfig(text, { source: SOURCE, env });
}

function configError(text: string, env: NodeJS.ProcessEnv = { ACME_API_KEY: SECRET }): ConfigError {
  try {
    parse(text, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ConfigError;
    expect(e.message).not.toContain(SECRET);
    expect(e.message).not.toMatch(/\n\s+at /);
    return e;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig: valid files', () => {
  it('fills every default for a minimal config', () => {
    const config = parse(minimal());
    expect(config).toEqual({
      accounts: [
        {
          name: 'acme',
          apiKey: SECRET,
          baseUrl: 'https://visibility.example/api/v1',
          brands: 'all',
          rateWindowSeconds: 60,
          allowInsecureHttp: false,
        },
      ],
      schedule: { nightly: { cron: '0 2 * * *', tz: 'UTC' } },
      extract: {
        visibilityDays: 7,
        backfillDays: 365,
        buyerIntentDays: [7, 30, 90],
        overlapDays: 2,
        concurrency: 8,
        maxResponseBytes: 64 * 1024 * 1024,
        requestTimeoutSeconds: 120,
        maxPauseSeconds: 3600,
      },
      redis: { prefix: 'visync' },
      jobs: { attempts: 5, lockSeconds: 30, maxBudgetWaitSeconds: 10, maxRunHours: 20 },
      load: { batchMinutes: 15, batchRuns: 500 },
      sinks: { fs: { dir: './data' } },
      shutdownGraceSeconds: 30,
      worker: { listen: '127.0.0.1:9464', ui: { readOnly: true } },
    });
    expect(config.accounts[0]?.requestsPerMinute).toBeUndefined();
  });

  it('accepts `sinks: {fs: {}}` and an empty `fs:`', () => {
    expect(parse(minimal().replace('  fs: {}\n', '  fs:\n')).sinks.fs).toEqual({ dir: './data' });
    const flow = minimal().replace('sinks:\n  fs: {}\n', 'sinks: {fs: {}}\n');
    expect(parse(flow).sinks).toEqual({ fs: { dir: './data' } });
  });

  it('parses a full config', () => {
    const text = `
accounts:
  - name: acme
    apiKey: \${ACME_API_KEY}
    baseUrl: https://visibility.example/api/v1
    brands: [ws_1, ws_2]
    requestsPerMinute: 100
  - name: sim-2
    apiKey: k2
    baseUrl: http://127.0.0.1:8080/api/v1
    rateWindowSeconds: 0.5
schedule:
  nightly: { cron: "30 1 * * 1-5", tz: Europe/Berlin }
extract: { visibilityDays: 3, backfillDays: 30, buyerIntentDays: [90, 7], overlapDays: 0, concurrency: 64 }
redis:
  url: \${REDIS_URL}
sinks:
  s3: { bucket: b, prefix: visibility, region: eu-west-1, endpoint: "http://127.0.0.1:9000", forcePathStyle: true }
  bigquery: { projectId: p, dataset: visibility, location: EU, apiEndpoint: "http://127.0.0.1:9050" }
shutdownGraceSeconds: 5
`;
    const c = parse(text, { ACME_API_KEY: SECRET, REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(c.accounts.map((a) => a.brands)).toEqual([['ws_1', 'ws_2'], 'all']);
    expect(c.accounts[0]?.requestsPerMinute).toBe(100);
    expect(c.accounts[1]?.rateWindowSeconds).toBe(0.5);
    expect(c.schedule.nightly).toEqual({ cron: '30 1 * * 1-5', tz: 'Europe/Berlin' });
    expect(c.extract.buyerIntentDays).toEqual([90, 7]);
    expect(c.redis.url).toBe('redis://127.0.0.1:6379');
    expect(c.sinks.fs).toBeUndefined();
    expect(c.sinks.s3).toEqual({
      bucket: 'b',
      prefix: 'visibility/',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      requestTimeoutSeconds: 60,
      maxAttempts: 5,
    });
    expect(c.sinks.bigquery).toEqual({
      projectId: 'p',
      dataset: 'visibility',
      location: 'EU',
      apiEndpoint: 'http://127.0.0.1:9050',
    });
    expect(c.shutdownGraceSeconds).toBe(5);
  });

  it('applies s3 and bigquery defaults', () => {
    const c = parse(
      minimal().replace('  fs: {}\n', '  s3: { bucket: b }\n  bigquery: { projectId: p, dataset: d }\n'),
    );
    expect(c.sinks.s3).toEqual({
      bucket: 'b',
      prefix: '',
      region: 'us-east-1',
      forcePathStyle: false,
      requestTimeoutSeconds: 60,
      maxAttempts: 5,
    });
    expect(c.sinks.bigquery).toEqual({ projectId: 'p', dataset: 'd', location: 'US' });
  });
});

describe('environment interpolation', () => {
  it('substitutes ${NAME}, ${NAME:-default} and the $${ escape', () => {
    const text = minimal(
      `redis:
  url: \${REDIS_URL:-redis://localhost:6379}
`,
      `    brands: ["\${WS}", "lit-$\${WS}", "\${UNSET_WS:-ws-default}", "\${EMPTY:-was-empty}"]
    requestsPerMinute: \${RPM}
`,
    );
    const c = parse(text, { ACME_API_KEY: SECRET, WS: 'ws_9', RPM: '90', EMPTY: '' });
    expect(c.accounts[0]?.apiKey).toBe(SECRET);
    expect(c.accounts[0]?.brands).toEqual(['ws_9', 'lit-${WS}', 'ws-default', 'was-empty']);
    expect(c.accounts[0]?.requestsPerMinute).toBe(90);
    expect(c.redis.url).toBe('redis://localhost:6379');
  });

  it('never lets an environment value add YAML structure', () => {
    const evil = 'x\n  injected: true\n- name: evil';
    const c = parse(minimal('reports: { footer: "${FOOTER}" }\n'), { ACME_API_KEY: SECRET, FOOTER: evil });
    expect(c.accounts).toHaveLength(1);
    expect(c.reports?.footer).toBe(evil);
    // A store folder goes into generated SQL and its comments: a line break there is refused.
    const e = configError(minimal().replace('fs: {}', 'fs: { dir: "${DATA_DIR}" }'), {
      ACME_API_KEY: SECRET,
      DATA_DIR: evil,
    });
    expect(e.issues.map((i) => i.path)).toEqual(['sinks.fs.dir']);
  });

  it('reports unset variables as undefined with their dotted path', () => {
    const r = interpolateEnv({ a: [{ k: '${NOPE}' }, 'pre-${ALSO_NOPE}-post'], b: '${SET}' }, { SET: 'v' });
    expect(r.value).toEqual({ a: [{ k: undefined }, undefined], b: 'v' });
    expect([...r.unset]).toEqual([
      ['a.0.k', 'NOPE'],
      ['a.1', 'ALSO_NOPE'],
    ]);
    expect(r.problems).toEqual([]);
  });

  it('names the path and the variable when apiKey comes from an unset variable', () => {
    const e = configError(minimal(), {});
    expect(e.issues).toEqual([
      {
        path: 'accounts.0.apiKey',
        message: expect.stringContaining('environment variable ACME_API_KEY is not set'),
      },
    ]);
    expect(e.message).toMatch(
      /^test\.yaml: accounts\.0\.apiKey: required: .*\(environment variable ACME_API_KEY is not set\)$/,
    );
  });

  it('names the variable when a union value comes from an unset variable', () => {
    const e = configError(minimal('', '    brands: ["${WS_ID}"]\n'));
    expect(e.issues).toEqual([
      {
        path: 'accounts.0.brands',
        message: 'expected one of: all, or a list of workspace ids (environment variable WS_ID is not set)',
      },
    ]);
  });

  it('accepts an unset REDIS_URL (url left undefined)', () => {
    const c = parse(minimal('redis:\n  url: ${REDIS_URL}\n'));
    expect(c.redis.url).toBeUndefined();
    const flowQuoted = parse(minimal('redis: {url: "${REDIS_URL}"}\n'));
    expect(flowQuoted.redis.url).toBeUndefined();
  });

  it('accepts the design example: an unquoted ${...} as a whole value inside { } or [ ]', () => {
    const c = parse(minimal('redis: { url: ${REDIS_URL} }\n'), {
      ACME_API_KEY: SECRET,
      REDIS_URL: 'redis://10.0.0.1:6379',
    });
    expect(c.redis.url).toBe('redis://10.0.0.1:6379');
    const unset = parse(minimal('redis: {url: ${REDIS_URL}}\n'));
    expect(unset.redis.url).toBeUndefined();
  });

  it('explains a ${...} that cannot be read inside a flow mapping', () => {
    const e = configError(minimal('redis: {url: x${REDIS_URL}}\n'));
    expect(e.message).toMatch(/line 7, column \d+: YAML syntax error/);
    expect(e.message).toContain('quote a ${NAME} reference');
  });

  it('rejects a malformed reference without quoting the value', () => {
    const e = configError(minimal('', `    brands: ["\${not valid} ${SECRET}"]\n`));
    expect(e.issues).toEqual([
      { path: 'accounts.0.brands.0', message: expect.stringContaining('invalid ${...} reference') },
    ]);
  });
});

describe('validation errors', () => {
  it('names an unknown key with a suggestion', () => {
    const e = configError(minimal().replace('apiKey:', 'apikey:'));
    expect(e.issues).toContainEqual({
      path: 'accounts.0.apikey',
      message: 'unknown key (did you mean apiKey?)',
    });
    expect(e.message).toContain('test.yaml: accounts.0.apikey: unknown key (did you mean apiKey?)');
    // The real key is then missing, which is reported too.
    expect(e.issues.map((i) => i.path)).toContain('accounts.0.apiKey');
  });

  it('suggests within nested sections and lists the keys when nothing is close', () => {
    const e = configError(
      minimal('extract: { visiblityDays: 3, zzz: 1 }\nschedule: { nightly: { timezone: UTC } }\n'),
    );
    expect(e.issues).toContainEqual({
      path: 'extract.visiblityDays',
      message: 'unknown key (did you mean visibilityDays?)',
    });
    expect(e.issues).toContainEqual({
      path: 'extract.zzz',
      message:
        'unknown key (expected one of: visibilityDays, backfillDays, buyerIntentDays, overlapDays, concurrency, maxResponseBytes, requestTimeoutSeconds, maxPauseSeconds)',
    });
    expect(e.issues.find((i) => i.path === 'schedule.nightly.timezone')?.message).toMatch(/^unknown key/);
    const top = configError(`${minimal()}sink: {}\n`);
    expect(top.issues).toContainEqual({ path: 'sink', message: 'unknown key (did you mean sinks?)' });
  });

  it('suggest() ignores case and separators, and declines wild guesses', () => {
    expect(suggest('api_key', ['name', 'apiKey'])).toBe('apiKey');
    expect(suggest('BASEURL', ['baseUrl'])).toBe('baseUrl');
    expect(suggest('xyz', ['name', 'apiKey'])).toBeUndefined();
  });

  it('rejects a bad account name', () => {
    const e = configError(minimal().replace('name: acme', 'name: Acme_Corp'));
    expect(e.issues).toEqual([
      { path: 'accounts.0.name', message: expect.stringContaining('lowercase letters, digits and -') },
    ]);
  });

  it('rejects duplicate account names', () => {
    const text = minimal('', '  - name: acme\n    apiKey: k\n    baseUrl: https://b.example\n');
    expect(configError(text).issues).toEqual([
      { path: 'accounts.1.name', message: expect.stringContaining('unique') },
    ]);
  });

  it('refuses http for a non-loopback baseUrl and accepts loopback hosts', () => {
    const e = configError(minimal().replace('https://visibility.example', 'http://visibility.example'));
    expect(e.issues).toEqual([
      { path: 'accounts.0.baseUrl', message: expect.stringContaining('must use https') },
    ]);
    expect(e.message).toContain('loopback');
    // A simulator on a private network is allowed only when the account says so explicitly.
    const insecure = parse(
      minimal().replace(
        'https://visibility.example/api/v1',
        'http://simulator:8787/api/v1\n    allowInsecureHttp: true',
      ),
    );
    expect(insecure.accounts[0]?.allowInsecureHttp).toBe(true);
    for (const url of [
      'http://127.0.0.1:8080/api/v1',
      'http://127.8.9.10',
      'http://localhost:3000',
      'http://[::1]:3000/api',
    ]) {
      expect(parse(minimal().replace('https://visibility.example/api/v1', url)).accounts[0]?.baseUrl).toBe(
        url,
      );
    }
    expect(
      configError(minimal().replace('https://visibility.example/api/v1', 'not a url')).issues[0]?.message,
    ).toMatch(/absolute URL/);
    expect(
      configError(minimal().replace('https://visibility.example/api/v1', 'ftp://x.example')).issues[0]
        ?.message,
    ).toMatch(/http\(s\) URL/);
  });

  it('rejects buyerIntentDays out of range, duplicated or empty', () => {
    const e = configError(minimal('extract:\n  buyerIntentDays: [7, 91, 3]\n'));
    expect(e.issues).toEqual([
      { path: 'extract.buyerIntentDays.1', message: 'expected a whole number between 7 and 90' },
      { path: 'extract.buyerIntentDays.2', message: 'expected a whole number between 7 and 90' },
    ]);
    expect(configError(minimal('extract:\n  buyerIntentDays: [7, 7]\n')).issues[0]?.path).toBe(
      'extract.buyerIntentDays',
    );
    expect(configError(minimal('extract:\n  buyerIntentDays: []\n')).issues[0]?.path).toBe(
      'extract.buyerIntentDays',
    );
  });

  it('gives readable messages for numbers and brands', () => {
    const e = configError(
      minimal(
        'extract: { concurrency: 0, visibilityDays: 1.5 }\n',
        '    requestsPerMinute: -1\n    brands: some\n',
      ),
    );
    expect(e.issues).toEqual(
      expect.arrayContaining([
        { path: 'accounts.0.requestsPerMinute', message: 'expected a positive integer' },
        { path: 'accounts.0.brands', message: 'expected one of: all, or a list of workspace ids' },
        { path: 'extract.concurrency', message: 'expected a whole number between 1 and 64' },
        { path: 'extract.visibilityDays', message: 'expected a whole number between 1 and 365' },
      ]),
    );
  });

  it('rejects an invalid time zone and a malformed cron', () => {
    const e = configError(minimal('schedule:\n  nightly: { cron: "0 2 * *", tz: Mars/Olympus_Mons }\n'));
    expect(e.issues).toEqual([
      { path: 'schedule.nightly.cron', message: expect.stringContaining('5 or 6 space-separated fields') },
      {
        path: 'schedule.nightly.tz',
        message: expect.stringContaining('unknown time zone "Mars/Olympus_Mons"'),
      },
    ]);
  });

  it('rejects a cron that BullMQ cannot schedule, naming the field and the value', () => {
    const at = (cron: string, account = false) =>
      configError(
        account
          ? minimal('', `    schedule: { cron: "${cron}" }\n`)
          : minimal(`schedule:\n  nightly: { cron: "${cron}" }\n`),
      ).issues;
    expect(at('0 25 * * *')).toEqual([
      { path: 'schedule.nightly.cron', message: 'hour 25 is out of range 0-23' },
    ]);
    expect(at('61 2 * * *', true)).toEqual([
      { path: 'accounts.0.schedule.cron', message: 'minute 61 is out of range 0-59' },
    ]);
    expect(at('0 2 31 2 *')).toEqual([
      {
        path: 'schedule.nightly.cron',
        message: 'day of month 31 never occurs in month 2: the schedule would never fire',
      },
    ]);
    expect(at('0 0 2 * 13 *')).toEqual([
      { path: 'schedule.nightly.cron', message: 'month 13 is out of range 1-12' },
    ]);
    expect(at('0 2 1-40 * *')).toEqual([
      { path: 'schedule.nightly.cron', message: 'day of month 1-40 is out of range 1-31' },
    ]);
    // What BullMQ accepts stays accepted.
    for (const cron of ['0 2 31 1,2 *', '0 0 2 * * *', '30 1 * * 1-5', '0 2 L * *'])
      expect(parse(minimal(`schedule:\n  nightly: { cron: "${cron}" }\n`)).schedule.nightly.cron).toBe(cron);
  });

  it('checks cron with the cron-parser version BullMQ schedules with', () => {
    const pkg = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
    expect(pkg('../package.json').dependencies['cron-parser']).toBe(
      pkg('../node_modules/bullmq/package.json').dependencies['cron-parser'],
    );
  });

  it('a key value with a line break, only whitespace or whitespace around: a config error naming the variable, never the key', () => {
    const bad = (value: string) => configError(minimal(), { ACME_API_KEY: value }).issues;
    const at = 'accounts.0.apiKey (${ACME_API_KEY})';
    expect(bad(`${SECRET}\nsecond-line`)).toEqual([{ path: at, message: 'the key has a line break' }]);
    expect(bad('   ')).toEqual([{ path: at, message: 'the key is only whitespace' }]);
    expect(bad(` ${SECRET}\t`)).toEqual([
      { path: at, message: 'the key has whitespace before or after it (copied with spaces around?)' },
    ]);
    expect(bad(`${SECRET.slice(0, 8)} ${SECRET.slice(8)}`)).toEqual([
      { path: at, message: 'the key has a space or control character inside' },
    ]);
    // Through a mounted secret (ACME_API_KEY_FILE) the variable named is the one set.
    const dir = mkdtempSync(join(tmpdir(), 'visync-key-'));
    try {
      const file = join(dir, 'key');
      writeFileSync(file, `${SECRET}\nmore\n`);
      expect(configError(minimal(), { ACME_API_KEY_FILE: file }).issues).toEqual([
        {
          path: 'accounts.0.apiKey (${ACME_API_KEY} from ACME_API_KEY_FILE)',
          message: 'the key has a line break',
        },
      ]);
      const keyFile = join(dir, 'acme.key');
      writeFileSync(keyFile, `${SECRET}\r\nmore\n`);
      const viaFile = minimal().replace('apiKey: ${ACME_API_KEY}', `apiKeyFile: ${keyFile}`);
      expect(configError(viaFile).issues).toEqual([
        { path: 'accounts.0.apiKeyFile', message: `the key in ${keyFile} has a line break` },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A key file's trailing newline (how secrets are mounted) is fine.
    expect(parse(minimal(), { ACME_API_KEY: SECRET }).accounts[0]?.apiKey).toBe(SECRET);
  });

  it('rejects fs and s3 together', () => {
    const e = configError(minimal().replace('  fs: {}\n', '  fs: {}\n  s3: { bucket: b }\n'));
    expect(e.issues).toEqual([
      { path: 'sinks', message: expect.stringContaining('choose one object store') },
    ]);
  });

  it('rejects sinks without fs or s3, and a missing sinks', () => {
    const onlyBq = configError(minimal().replace('  fs: {}\n', '  bigquery: { projectId: p, dataset: d }\n'));
    expect(onlyBq.issues).toEqual([{ path: 'sinks', message: expect.stringMatching(/^configure fs or s3/) }]);
    expect(onlyBq.message).toContain('test.yaml: sinks: configure fs or s3');
    const missing = configError(minimal().replace('sinks:\n  fs: {}\n', ''));
    expect(missing.issues).toEqual([
      { path: 'sinks', message: expect.stringMatching(/^required: configure fs or s3/) },
    ]);
  });

  it('rejects an empty file and a file that is not a mapping', () => {
    expect(configError('').issues).toEqual([
      { path: '', message: expect.stringContaining('accounts and sinks') },
    ]);
    expect(configError('- a\n- b\n').message).toBe(
      'test.yaml: expected a YAML mapping with at least accounts and sinks',
    );
  });

  it('reports a YAML syntax error with line and column', () => {
    const e = configError('accounts:\n  - name: acme\n    apiKey: "unterminated\nsinks: {}\n');
    expect(e.issues).toHaveLength(1);
    expect(e.message).toMatch(/^test\.yaml: line \d+, column \d+: YAML syntax error: /);
    const dup = configError('accounts: []\naccounts: []\n');
    expect(dup.message).toMatch(/^test\.yaml: line 2, column 1: YAML syntax error: .*unique/);
  });

  it('never puts an apiKey value into an error message', () => {
    const literal = `accounts:
  - name: BAD NAME
    apiKey: ${SECRET}
    baseUrl: http://example.com
    brands: ${SECRET}
    requestsPerMinute: ${SECRET}
    ${SECRET}: 1
sinks: {}
`;
    const e = configError(literal);
    expect(e.issues.length).toBeGreaterThanOrEqual(5);
    expect(JSON.stringify(e.issues)).not.toContain(SECRET);
    // Through the environment as well, and in a YAML syntax error on the key's own line.
    configError(minimal('', `    brands: ${SECRET}\n    rateWindowSeconds: \${ACME_API_KEY}\n`));
    for (const text of [
      `accounts:\n  - apiKey: |x ${SECRET}\n`,
      `accounts: [{apiKey: a}]\n]${SECRET}\n`,
      `a: {b: 1} "${SECRET}"\n`,
    ]) {
      expect(configError(text).message).toMatch(/YAML syntax error/);
    }
  });
});

describe('readConfig and resolveConfigPath', () => {
  const dir = mkdtempSync(join(tmpdir(), 'visync-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves --config, then VISYNC_CONFIG, then the default', () => {
    expect(resolveConfigPath('a.yaml', { VISYNC_CONFIG: 'b.yaml' })).toBe('a.yaml');
    expect(resolveConfigPath(undefined, { VISYNC_CONFIG: 'b.yaml' })).toBe('b.yaml');
    expect(resolveConfigPath(undefined, {})).toBe('config/visync.yaml');
  });

  it('loads a file, using the file name in messages', () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, minimal());
    expect(readConfig(file, { ACME_API_KEY: 'k' }).accounts[0]?.apiKey).toBe('k');
    expect(readConfig(undefined, { VISYNC_CONFIG: file, ACME_API_KEY: 'k' }).sinks.fs?.dir).toBe('./data');
    try {
      readConfig(file, {});
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).message).toBe(
        `${file}: accounts.0.apiKey: required: expected a non-empty API key, e.g. apiKey: \${ACME_API_KEY} (environment variable ACME_API_KEY is not set)`,
      );
    }
  });

  it('explains a missing file and how to fix it', () => {
    const file = join(dir, 'nope.yaml');
    expect(() => readConfig(file, {})).toThrow(ConfigError);
    try {
      readConfig(file, {});
    } catch (err) {
      const msg = (err as ConfigError).message;
      expect(msg).toContain(file);
      expect(msg).toContain('not found');
      expect(msg).toContain('config/visync.example.yaml');
      expect(msg).toContain('--config');
      expect(msg).toContain('VISYNC_CONFIG');
    }
  });

  it('the example config is valid once its variables are set', () => {
    const example = readFileSync(new URL('../config/visync.example.yaml', import.meta.url), 'utf8');
    const c = parseConfig(example, { source: 'config/visync.example.yaml', env: { ACME_API_KEY: 'k' } });
    expect(c.accounts[0]?.name).toBe('acme');
    expect(c.sinks.fs).toBeDefined();
    const unset = (() => {
      try {
        parseConfig(example, { source: 'config/visync.example.yaml', env: {} });
      } catch (err) {
        return err as ConfigError;
      }
    })();
    expect(unset?.issues.map((i) => i.path)).toEqual(['accounts.0.apiKey']);
  });
});

describe('operations settings', () => {
  it('worker.listen takes HOST:PORT or off, and names the key when it is neither', () => {
    expect(parse(minimal('worker: { listen: "0.0.0.0:9464" }\n')).worker.listen).toBe('0.0.0.0:9464');
    expect(parse(minimal('worker: { listen: off }\n')).worker.listen).toBe('off');
    expect(parse(minimal('worker: { listen: "[::1]:9464" }\n')).worker.listen).toBe('[::1]:9464');
    const e = configError(minimal('worker: { listen: "9464" }\n'));
    expect(e.issues[0]?.path).toBe('worker.listen');
    expect(e.issues[0]?.message).toContain('HOST:PORT');
  });

  it('alerts need a webhook URL, accept only failed, partial, stale and report, and leave report out by default', () => {
    const c = parse(minimal('alerts: { webhook: "${HOOK}" }\n'), {
      ACME_API_KEY: SECRET,
      HOOK: 'https://hooks.example/x',
    });
    expect(c.alerts).toEqual({
      webhook: 'https://hooks.example/x',
      on: ['failed', 'partial', 'stale'],
      staleAfterHours: 30,
    });
    expect(configError(minimal('alerts: { on: [failed] }\n')).issues[0]?.path).toBe('alerts.webhook');
    expect(
      configError(minimal('alerts: { webhook: "https://h.example/x", on: [broken] }\n')).issues[0]?.path,
    ).toBe('alerts.on.0');
  });
});

describe('commands that never call the API run without the keys', () => {
  const keyless = [
    'accounts:',
    '  - name: acme',
    '    apiKey: ${ACME_KEY_NOT_HERE}',
    '    baseUrl: https://api.example.com/v1',
    'sinks: { fs: { dir: ./data } }',
    '',
  ].join('\n');

  it('parsed for a command that never calls the API (apiKeys: unused), an unset key variable is accepted', () => {
    const c = parseConfig(keyless, { source: 'ops.yaml', env: {}, apiKeys: 'unused' });
    expect(c.accounts.map((a) => a.name)).toEqual(['acme']);
    expect(c.accounts[0]!.apiKey).not.toContain('${');
  });

  it('run --once, worker and doctor still name the unset variable', () => {
    expect(() => parseConfig(keyless, { source: 'ops.yaml', env: {} })).toThrow(
      /accounts\.0\.apiKey: .*environment variable ACME_KEY_NOT_HERE is not set/,
    );
  });

  it('through the CLI: export dbt runs, run --once refuses with the variable named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'visync-keyless-'));
    try {
      const path = join(dir, 'visync.yaml');
      writeFileSync(
        path,
        keyless.replace(
          'sinks: { fs: { dir: ./data } }',
          'sinks: { fs: { dir: ./data }, bigquery: { projectId: p, dataset: vis } }',
        ),
      );
      const exported = await visyncCli(path, ['export', 'dbt', '--out', join(dir, 'dbt')]);
      expect(exported.code, exported.err.join('\n')).toBe(0);
      expect(readFileSync(join(dir, 'dbt', 'models', 'sources.yml'), 'utf8')).toContain('name: sync_runs');
      const run = await visyncCli(path, ['run', '--once']);
      expect(run.code).toBe(78);
      expect(run.err.join('\n')).toMatch(/environment variable ACME_KEY_NOT_HERE is not set/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('per-account overrides in accounts', () => {
  it('schedule, bigquery.dataset, s3.prefix are validated like the top-level keys, at their dotted path', () => {
    const e = configError(
      minimal(
        '',
        '    schedule: { cron: "* *", tz: Nowhere/City, when: 1 }\n    bigquery: { dataset: "" }\n    s3: { prefx: a }\n',
      ).replace('  fs: {}\n', '  s3: { bucket: b }\n  bigquery: { projectId: p, dataset: d }\n'),
    );
    expect(e.issues).toEqual([
      { path: 'accounts.0.schedule.cron', message: expect.stringContaining('5 or 6 space-separated fields') },
      {
        path: 'accounts.0.schedule.tz',
        message: expect.stringContaining('unknown time zone "Nowhere/City"'),
      },
      { path: 'accounts.0.schedule.when', message: 'unknown key (expected one of: cron, tz)' },
      { path: 'accounts.0.bigquery.dataset', message: 'expected a BigQuery dataset name' },
      { path: 'accounts.0.s3.prefix', message: 'required: expected a key prefix such as visibility/' },
      { path: 'accounts.0.s3.prefx', message: 'unknown key (did you mean prefix?)' },
    ]);
    const values = configError(minimal('', '    schedule: { cron: "* *", tz: Nowhere/City }\n'));
    expect(values.issues.map((i) => i.path)).toEqual(['accounts.0.schedule.cron', 'accounts.0.schedule.tz']);
  });

  it('an override needs its sink at the top, and keeps the config as written otherwise', () => {
    expect(configError(minimal('', '    bigquery: { dataset: d2 }\n')).issues).toEqual([
      { path: 'accounts.0.bigquery', message: expect.stringMatching(/^needs sinks\.bigquery/) },
    ]);
    const c = parse(
      minimal('', '    schedule: { tz: Asia/Tokyo }\n    s3: { prefix: /clients/acme }\n').replace(
        '  fs: {}\n',
        '  s3: { bucket: b, prefix: shared/ }\n',
      ),
    );
    expect(c.accounts[0]?.schedule).toEqual({ tz: 'Asia/Tokyo' });
    expect(c.accounts[0]?.s3).toEqual({ prefix: 'clients/acme/' });
    expect(c.sinks.s3?.prefix).toBe('shared/');
  });

  it('an account with neither apiKey nor apiKeyFile: apiKey is required', () => {
    const e = configError(minimal().replace('    apiKey: ${ACME_API_KEY}\n', ''));
    expect(e.issues).toEqual([{ path: 'accounts.0.apiKey', message: expect.stringMatching(/^required: /) }]);
  });
});

describe('the colours the example config shows', () => {
  // Issue #41, case 5: the example's own accent colour warned on every command once uncommented.
  it('uncommented, warn of nothing; the default colours are as readable as text on white', () => {
    const example = readFileSync(join(import.meta.dirname, '../config/visync.example.yaml'), 'utf8');
    const line = example.split('\n').find((l) => /^#\s+colors: \{/.test(l)) as string;
    const colours = [...line.matchAll(/(primary|accent): "(#[0-9a-f]{6})"/gi)].map((m) => [m[1], m[2]]);
    expect(colours.map(([k]) => k)).toEqual(['primary', 'accent']);
    expect(
      lowContrastColours({ reports: { colors: Object.fromEntries(colours) } } as unknown as Config),
    ).toEqual([]);
    const defaults = defaultReportSettings().colors;
    expect(Object.fromEntries(colours)).toEqual(defaults);
    for (const c of Object.values(defaults))
      expect(ratioOnWhite(c as string)).toBeGreaterThanOrEqual(AA_TEXT);
  });
});
