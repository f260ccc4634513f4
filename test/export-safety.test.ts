// Exports refuse or quote what reaches their SQL, YAML and comments (issue #40, items 3 and 5): a
// store folder named like a glob or holding a quote is read as the literal folder it is (the
// generated SQL run in DuckDB over a real run), a line break in a path is refused where it is given
// (config key or option) and never ends a comment, and every refusal is one line with its exit code.
// What is written is swapped in whole: no old statements beside new ones, no half project.
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { VIEWS, WAREHOUSE_TABLES } from '../src/catalogue/index.js';
import { duckdbViewsSql } from '../src/export/duckdb.js';
import { duckdbIn } from './helpers/duckdb.js';
import { fill, smallDisk } from './helpers/full-disk.js';
import { configFile, runOnceCli, sim, tempDir, visyncCli } from './helpers/harness.js';

const STATEMENTS = WAREHOUSE_TABLES.length + VIEWS.length;

/** A night of one account with two workspaces written into `store`; the config there. */
async function nightIn(store: string) {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 6 });
  const dir = tempDir();
  const r = await runOnceCli(s, dir, [], { sinks: { fs: { dir: join(dir, store) } } });
  expect(r.code, r.err.join('\n')).toBe(0);
  return { s, dir, config: join(dir, 'visync.yaml'), ids: [...s.accounts[0]!.workspaceIds].sort() };
}

describe('a store path is a literal path in the DuckDB script', () => {
  // Each with a decoy beside it that the name read as a glob matches: `[prod]` is one of p, r, o, d.
  for (const [store, decoy] of [
    ['store [prod]', 'store p'],
    ['a*b?c{1,2}', 'aXbYc{1,2}'],
    ["it's data", undefined],
    ['env=prod', undefined],
  ] as const) {
    it(`reads the folder ${JSON.stringify(store)} and only it`, async () => {
      const { dir, config, ids } = await nightIn(store);
      if (decoy) {
        const other = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 9 });
        const r = await runOnceCli(other, tempDir(), [], { sinks: { fs: { dir: join(dir, decoy) } } });
        expect(r.code, r.err.join('\n')).toBe(0);
      }
      const r = await visyncCli(config, ['export', 'duckdb', '--out', join(dir, 'views.sql')]);
      expect(r.code, r.err.join('\n')).toBe(0);
      const db = await duckdbIn(dir);
      await db.run(readFileSync(join(dir, 'views.sql'), 'utf8'));
      const rows = (
        await db.runAndReadAll('SELECT brand_id FROM brands_latest ORDER BY 1')
      ).getRowObjectsJson();
      expect(rows.map((x) => x.brand_id)).toEqual(ids);
    });
  }

  for (const store of ['store [prod]', "it's 100% data"])
    it(`dbt: the sources read the folder ${JSON.stringify(store)} (external_location run in DuckDB)`, async () => {
      const { dir, config, ids } = await nightIn(store);
      const r = await visyncCli(config, ['export', 'dbt', '--out', join(dir, 'visync_dbt')]);
      expect(r.code, r.err.join('\n')).toBe(0);
      const doc = parse(readFileSync(join(dir, 'visync_dbt/models/sources.yml'), 'utf8'));
      const brands = doc.sources[0].tables.find((t: { name: string }) => t.name === 'brands');
      const db = await duckdbIn(join(dir, 'visync_dbt'));
      const from = (brands.config.external_location as string).replaceAll('%%', '%');
      const rows = (
        await db.runAndReadAll(`SELECT DISTINCT brand_id FROM ${from} ORDER BY 1`)
      ).getRowObjectsJson();
      expect(rows.map((x) => x.brand_id)).toEqual(ids);
    });
});

describe("DuckDB's globbing, as the escape relies on it", () => {
  it('a class matches its one character; a backslash cannot be globbed through, escaped or not', async () => {
    const dir = tempDir();
    for (const folder of ['a[b]', 'ab', 'back\\slash']) {
      mkdirSync(join(dir, folder), { recursive: true });
      writeFileSync(join(dir, folder, 'part-1.ndjson'), `{"folder": ${JSON.stringify(folder)}}\n`);
    }
    const db = await duckdbIn(dir);
    const read = async (glob: string) =>
      (await db.runAndReadAll(`SELECT folder FROM read_json('${glob}')`))
        .getRowObjectsJson()
        .map((r) => r.folder);
    expect(await read(`${dir}/a[b]/*.ndjson`)).toEqual(['ab']);
    expect(await read(`${dir}/a[[]b]/*.ndjson`)).toEqual(['a[b]']);
    await expect(read(`${dir}/back\\slash/*.ndjson`)).rejects.toThrow(/No files found/);
    await expect(read(`${dir}/back[\\]slash/*.ndjson`)).rejects.toThrow(/No files found/);
  });
});

describe('a line break in a path is refused where it is given', () => {
  const INJECTED = '\nCREATE TABLE injected AS SELECT 1;\n--';

  it('sinks.fs.dir: one line naming the key, exit 78, no script', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    const { path } = configFile(s, dir, { sinks: { fs: { dir: `${dir}/data${INJECTED}` } } });
    const r = await visyncCli(path, ['export', 'duckdb']);
    expect(r.code).toBe(78);
    expect(r.out).toEqual([]);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/sinks\.fs\.dir/);
    expect(r.err[0]).toMatch(/line break|control character/);
  });

  it('sinks.s3.prefix and bucket: one line naming the key, exit 78', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    for (const [s3, key] of [
      [{ bucket: 'lake', prefix: `visync${INJECTED}/` }, 'sinks.s3.prefix'],
      [{ bucket: "lake'\nDROP TABLE brands;--", prefix: 'visync/' }, 'sinks.s3.bucket'],
      // The region goes into the dbt profile, which dbt renders with Jinja.
      [{ bucket: 'lake', region: "eu-west-1{{ env_var('AWS_SECRET_ACCESS_KEY') }}" }, 'sinks.s3.region'],
    ] as const) {
      const { path } = configFile(s, tempDir(), { sinks: { s3 } });
      const r = await visyncCli(path, ['export', 'athena', '--split', join(tempDir(), 'athena')]);
      expect(r.code, key).toBe(78);
      expect(r.err, key).toHaveLength(1);
      expect(r.err[0]).toContain(key);
    }
  });

  it('sinks.bigquery: a dataset or project that would leave its backticks or YAML is refused at load', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    for (const [bigquery, key] of [
      [{ projectId: 'p', dataset: 'vis`; DROP TABLE x; --' }, 'sinks.bigquery.dataset'],
      [{ projectId: "p'\n{{ env_var('HOME') }}", dataset: 'vis' }, 'sinks.bigquery.projectId'],
      [{ projectId: 'p', dataset: 'vis', location: "US{{ env_var('HOME') }}" }, 'sinks.bigquery.location'],
    ] as const) {
      const dir = tempDir();
      const { path } = configFile(s, dir, { sinks: { fs: { dir }, bigquery } });
      const r = await visyncCli(path, ['export', 'dbt', '--out', join(dir, 'dbt')]);
      expect(r.code, key).toBe(78);
      expect(r.err, key).toHaveLength(1);
      expect(r.err[0]).toContain(key);
      expect(readdirSync(dir), key).toEqual(['visync.yaml']);
    }
  });

  it('--root: one line naming the option, exit 64, for duckdb, athena and dbt', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    const { path } = configFile(s, dir);
    for (const args of [
      ['export', 'duckdb', '--root', `./data${INJECTED}`],
      ['export', 'athena', '--root', `s3://lake/visync${INJECTED}/`, '--split', join(dir, 'athena')],
      ['export', 'dbt', '--root', `./data${INJECTED}`, '--out', join(dir, 'dbt')],
    ]) {
      const r = await visyncCli(path, args);
      expect(r.code, args[1]).toBe(64);
      expect(r.out, args[1]).toEqual([]);
      expect(r.err[0], args[1]).toContain('--root');
    }
    expect(readdirSync(dir)).toEqual(['visync.yaml']);
  });

  it('dbt: a root dbt would read as Jinja, or a backslash DuckDB reads as a separator, is refused', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    const { path } = configFile(s, dir);
    for (const [args, why] of [
      [['export', 'dbt', '--root', './{{ env_var("HOME") }}', '--out', join(dir, 'dbt')], /Jinja/],
      [['export', 'duckdb', '--root', './back\\slash'], /backslash/],
      [['export', 'athena', '--root', 's3://lake/${dt}/', '--split', join(dir, 'athena')], /projection/],
    ] as const) {
      const r = await visyncCli(path, [...args]);
      expect(r.code, args[1]).toBe(64);
      expect(r.err, args[1]).toHaveLength(1);
      expect(r.err[0]).toMatch(why);
    }
    expect(readdirSync(dir)).toEqual(['visync.yaml']);
  });

  it('the script header never ends its comment, whatever the root holds', () => {
    const sql = duckdbViewsSql({ tables: WAREHOUSE_TABLES, root: `/data${INJECTED}`, withFiles: new Set() });
    const lines = sql.split('\n');
    expect(lines.filter((l) => /CREATE TABLE injected/.test(l) && !l.startsWith('--'))).toEqual([]);
    expect(lines[0]).toMatch(
      /^-- DuckDB views over the visync object store at \/data\\nCREATE TABLE injected/,
    );
  });
});

describe('where the output goes', () => {
  it('--out a file where a folder is needed, or a folder where a file is: one line, exit 64', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    const { path } = configFile(s, dir);
    writeFileSync(join(dir, 'FILE'), 'mine\n');
    mkdirSync(join(dir, 'DIR'));
    for (const args of [
      ['export', 'athena', '--root', 's3://lake/visync/', '--split', join(dir, 'FILE')],
      ['export', 'duckdb', '--out', join(dir, 'FILE/x.sql')],
      ['export', 'dbt', '--out', join(dir, 'FILE')],
      ['export', 'duckdb', '--out', join(dir, 'DIR')],
    ]) {
      const r = await visyncCli(path, args);
      expect(r.code, args.join(' ')).toBe(64);
      expect(r.err, args.join(' ')).toHaveLength(1);
      expect(r.err[0]).not.toMatch(/unexpected error|EEXIST/);
    }
    expect(readFileSync(join(dir, 'FILE'), 'utf8')).toBe('mine\n');
    expect(readdirSync(join(dir, 'DIR'))).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['DIR', 'FILE', 'visync.yaml']);
  });

  it('--split into a folder used before: the new statements only, nothing beside them', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    const { path } = configFile(s, dir);
    const split = join(dir, 'athena');
    mkdirSync(split);
    // An earlier export with more statements, numbered past the new ones.
    for (let n = 1; n <= STATEMENTS + 3; n++)
      writeFileSync(join(split, `${n}-old_view.sql`), 'DROP TABLE x;\n');
    const r = await visyncCli(path, [
      'export',
      'athena',
      '--root',
      's3://lake/visync/',
      '--split',
      `${split}/`,
    ]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const files = readdirSync(split);
    expect(files).toHaveLength(STATEMENTS);
    expect(files.filter((f) => f.includes('old_view'))).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['athena', 'visync.yaml']);
  });

  it('--split into a folder holding files of its own is refused, the folder untouched', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    const { path } = configFile(s, dir);
    writeFileSync(join(dir, 'notes.md'), 'mine\n');
    const r = await visyncCli(path, ['export', 'athena', '--root', 's3://lake/visync/', '--split', dir]);
    expect(r.code).toBe(64);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toContain('notes.md');
    expect(readdirSync(dir).sort()).toEqual(['notes.md', 'visync.yaml']);
  });

  it('a refused dbt export leaves no partial project', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 6 });
    const dir = tempDir();
    const { path } = configFile(s, dir);
    const out = join(dir, 'visync_dbt');
    mkdirSync(join(out, 'models'), { recursive: true });
    // A link planted where a folder of the project goes: refused, and nothing else written either.
    symlinkSync(tempDir(), join(out, 'models', 'staging'));
    const r = await visyncCli(path, ['export', 'dbt', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toContain('symbolic link');
    expect(readdirSync(out)).toEqual(['models']);
    expect(readdirSync(join(out, 'models'))).toEqual(['staging']);
    expect(lstatSync(join(out, 'models', 'staging')).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['visync.yaml', 'visync_dbt']);
  });

  it('dbt into a folder used before: its own files stay, the project is whole', async () => {
    const { dir, config } = await nightIn('data');
    const out = join(dir, 'visync_dbt');
    mkdirSync(join(out, 'target'), { recursive: true });
    writeFileSync(join(out, 'target', 'manifest.json'), '{}');
    const r = await visyncCli(config, ['export', 'dbt', '--out', out]);
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(readFileSync(join(out, 'target', 'manifest.json'), 'utf8')).toBe('{}');
    expect(readdirSync(out).sort()).toEqual([
      '.visync-export',
      'dbt_project.yml',
      'models',
      'profiles.yml',
      'target',
      'tests',
    ]);
  });
});

describe('dbt into its own project again', () => {
  it('a model an earlier export wrote and this one does not is removed; your own files stay', async () => {
    const { dir, config } = await nightIn('data');
    const out = join(dir, 'visync_dbt');
    expect((await visyncCli(config, ['export', 'dbt', '--out', out])).code).toBe(0);
    // As an earlier visync would have left it: a view since renamed, listed as written by it.
    const old = 'models/changes/renamed_changes.sql';
    writeFileSync(join(out, old), 'select 1 as x\n');
    writeFileSync(
      join(out, '.visync-export'),
      `${readFileSync(join(out, '.visync-export'), 'utf8')}${old}\n`,
    );
    writeFileSync(join(out, 'models', 'my_model.sql'), 'select 2 as y\n');
    const r = await visyncCli(config, ['export', 'dbt', '--out', out]);
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(readdirSync(join(out, 'models', 'changes'))).not.toContain('renamed_changes.sql');
    expect(readFileSync(join(out, 'models', 'my_model.sql'), 'utf8')).toBe('select 2 as y\n');
    expect(readFileSync(join(out, '.visync-export'), 'utf8')).not.toContain(old);
  });
});

describe('a full disk', () => {
  it('dbt and --split: one line, exit 1, the earlier project and statements as they were, nothing beside them', async () => {
    const { config } = await nightIn('data');
    const disk = smallDisk(4);
    const out = join(disk, 'visync_dbt');
    const split = join(disk, 'athena');
    const args = {
      dbt: ['export', 'dbt', '--out', out],
      athena: ['export', 'athena', '--root', 's3://lake/v/', '--split', split],
    };
    for (const a of Object.values(args)) expect((await visyncCli(config, a)).code).toBe(0);
    const before = snapshot(disk);
    fill(disk);
    for (const a of Object.values(args)) {
      const r = await visyncCli(config, a);
      expect(r.code, a[1]).toBe(1);
      expect(r.err, a[1]).toHaveLength(1);
      expect(r.err[0]).toContain('no space left on device');
    }
    expect(snapshot(disk)).toEqual({ ...before, filler: expect.any(String) });
  });
});

/** Every file under `dir` with its text, by path. */
function snapshot(dir: string, base = dir): Record<string, string> {
  return Object.assign(
    {},
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory()
        ? snapshot(join(dir, e.name), base)
        : {
            [join(dir, e.name).slice(base.length + 1)]:
              e.name === 'filler' ? 'filler' : readFileSync(join(dir, e.name), 'utf8'),
          },
    ),
  );
}

describe('--json refusals print a document', () => {
  it('replay --json: a run that is not there, or not a run id: the line on stderr, the document on stdout', async () => {
    const { config } = await nightIn('data');
    for (const [args, code] of [
      [['--run', 'nope'], 1],
      [['--run', '../x'], 64],
      // An option the command does not take: commander's line, then its pointer to --help.
      [['--run', 'nope', '--bogus'], 64],
    ] as const) {
      const run = args.join(' ');
      const r = await visyncCli(config, ['replay', ...args, '--json']);
      expect(r.code, run).toBe(code);
      expect(
        r.err.filter((l) => l !== '(add --help for usage)'),
        run,
      ).toHaveLength(1);
      const doc = JSON.parse(r.out.join('\n'));
      expect(doc).toEqual({
        error: r.err[0]!.replace(/^(visync|error): /, ''),
        exit_code: code,
        exit_meaning: code === 64 ? 'usage error' : 'failed',
      });
    }
  });

  it('report --json --format pdf without a Chromium: the document, exit 1', async () => {
    const { config } = await nightIn('data');
    const text = readFileSync(config, 'utf8');
    writeFileSync(config, `${text}reports:\n  chromiumPath: /nonexistent/chromium\n`);
    const r = await visyncCli(config, ['report', '--json', '--format', 'pdf', '--out', join(tempDir(), 'r')]);
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(1);
    const doc = JSON.parse(r.out.join('\n'));
    expect(doc.exit_code).toBe(1);
    expect(doc.error).toBe(r.err[0]!.replace(/^visync: /, ''));
  });
});
