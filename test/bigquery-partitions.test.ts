// The cost settings of sinks.bigquery (docs/production.md, "Costs and retention"): partition
// expiration and the required partition filter, from the config file through the load stage's
// prepare to the tables, through the real @google-cloud/bigquery client against the fake server.
import { describe, expect, it } from 'vitest';
import { SYNC_RUNS, TABLES, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { ConfigError, parseConfig } from '../src/config/read-config.js';
import { createRunLoader } from '../src/run/warehouse.js';
import { createBigQuery, ensureTables } from '../src/warehouse/index.js';
import * as h from './helpers/harness.js';

const DAY_MS = 86_400_000;

function configText(endpoint: string, extra: string): string {
  return `accounts:
  - name: acme
    apiKey: \${ACME_API_KEY}
    baseUrl: https://visibility.example/api/v1
sinks:
  fs: {}
  bigquery:
    projectId: p
    dataset: vis
    location: EU
    apiEndpoint: ${endpoint}
${extra}`;
}

const parse = (text: string, env: Record<string, string> = {}) =>
  parseConfig(text, { source: 'visync.yaml', env: { ACME_API_KEY: 'k', ...env } });

/** Each table's expiration (ms, as BigQuery returns it) and filter requirement, read back by the client. */
async function partitionSettings(endpoint: string) {
  const ds = createBigQuery({
    projectId: 'p',
    dataset: 'vis',
    location: 'EU',
    apiEndpoint: endpoint,
  }).dataset('vis');
  const out: Record<string, { expirationMs: string | undefined; requirePartitionFilter: boolean }> = {};
  for (const t of WAREHOUSE_TABLES) {
    const [meta] = await ds.table(t.name).getMetadata();
    out[t.name] = {
      expirationMs: meta.timePartitioning?.expirationMs ?? undefined,
      requirePartitionFilter: meta.requirePartitionFilter ?? false,
    };
  }
  return out;
}

describe('sinks.bigquery partitionExpirationDays and requirePartitionFilter', () => {
  it('tables are created with them: every table expires, every data table but sync_runs needs a filter', async () => {
    const fake = await h.fakeBigQuery();
    const config = parse(
      configText(fake.url, '    partitionExpirationDays: ${BQ_DAYS}\n    requirePartitionFilter: true\n'),
      { BQ_DAYS: '400' },
    );
    expect(config.sinks.bigquery).toMatchObject({
      partitionExpirationDays: 400,
      requirePartitionFilter: true,
    });
    const loader = await createRunLoader(config.sinks);
    await loader?.prepare();

    const got = await partitionSettings(fake.url);
    for (const t of TABLES) {
      expect(got[t.name]).toEqual({ expirationMs: String(400 * DAY_MS), requirePartitionFilter: true });
    }
    // Every view reads sync_runs whole (src/catalogue/views.ts): a filter requirement would break them all.
    expect(got[SYNC_RUNS.name]).toEqual({
      expirationMs: String(400 * DAY_MS),
      requirePartitionFilter: false,
    });
  });

  it('without them, tables get neither (BigQuery keeps partitions and needs no filter)', async () => {
    const fake = await h.fakeBigQuery();
    await (await createRunLoader(parse(configText(fake.url, '')).sinks))?.prepare();
    const got = await partitionSettings(fake.url);
    expect(Object.values(got)).toEqual(
      WAREHOUSE_TABLES.map(() => ({ expirationMs: undefined, requirePartitionFilter: false })),
    );
  });

  it('existing tables are patched when the config changes them, and left as they are when it leaves them out', async () => {
    const fake = await h.fakeBigQuery();
    const bq = createBigQuery({ projectId: 'p', dataset: 'vis', location: 'EU', apiEndpoint: fake.url });
    await bq.createDataset('vis', { location: 'EU' });
    const first = await ensureTables(bq, 'vis', WAREHOUSE_TABLES);
    expect(new Set(first.map((r) => r.action))).toEqual(new Set(['created']));

    // Set later: every table is updated, and the next prepare finds nothing to do.
    const set = { partitionExpirationDays: 90, requirePartitionFilter: true };
    expect(new Set((await ensureTables(bq, 'vis', WAREHOUSE_TABLES, set)).map((r) => r.action))).toEqual(
      new Set(['updated']),
    );
    const again = await ensureTables(bq, 'vis', WAREHOUSE_TABLES, set);
    // sync_runs had no filter to begin with and keeps none; its expiration was patched with the rest.
    expect(new Set(again.map((r) => r.action))).toEqual(new Set(['exists']));
    expect((await partitionSettings(fake.url))['visibility_daily']).toEqual({
      expirationMs: String(90 * DAY_MS),
      requirePartitionFilter: true,
    });

    // Turned off and lengthened: patched again, partitioning type and field untouched.
    await ensureTables(bq, 'vis', WAREHOUSE_TABLES, {
      partitionExpirationDays: 365,
      requirePartitionFilter: false,
    });
    expect(fake.table('p', 'vis', 'visibility_daily')?.timePartitioning).toEqual({
      type: 'DAY',
      field: 'date',
      expirationMs: String(365 * DAY_MS),
    });
    expect((await partitionSettings(fake.url))['visibility_daily']?.requirePartitionFilter).toBe(false);

    // Left out of the config: what the tables have stays (visync does not manage it then).
    expect(new Set((await ensureTables(bq, 'vis', WAREHOUSE_TABLES)).map((r) => r.action))).toEqual(
      new Set(['exists']),
    );
    expect((await partitionSettings(fake.url))['brands']?.expirationMs).toBe(String(365 * DAY_MS));
  });

  it('a bad value is a config error naming the key', () => {
    for (const [extra, key, message] of [
      ['    partitionExpirationDays: 0\n', 'sinks.bigquery.partitionExpirationDays', 'positive integer'],
      ['    partitionExpirationDays: 1.5\n', 'sinks.bigquery.partitionExpirationDays', 'positive integer'],
      ['    requirePartitionFilter: yes please\n', 'sinks.bigquery.requirePartitionFilter', 'true or false'],
    ] as const) {
      let error: ConfigError | undefined;
      try {
        parse(configText('http://127.0.0.1:9', extra));
      } catch (err) {
        error = err as ConfigError;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect(error?.issues.map((i) => i.path)).toEqual([key]);
      expect(error?.message).toContain(message);
    }
  });
});
