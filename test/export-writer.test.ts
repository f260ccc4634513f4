// Exported readers name the release that generated them and their format (issue #41, item 2):
// the DuckDB script, the Athena statements and the dbt project's files, through the built visync,
// so a reader can tell which release's contract a file follows and re-generate after an upgrade.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageVersion } from '../src/util/writer.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { configFile, sim, tempDir } from './helpers/harness.js';

const line = (comment: string) =>
  `${comment} written by visibility-sync ${packageVersion()}, format version 1`;

describe('exported readers name their writer', () => {
  it('duckdb, athena (whole and --split) and every dbt YAML file, in their headers', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 41 });
    const dir = tempDir();
    configFile(s, dir, { sinks: { fs: { dir: join(dir, 'data') } } });
    const visync = (args: string[]) =>
      execFileSync(NODE22, [builtVisync().bin, '--config', 'visync.yaml', ...args], {
        cwd: dir,
        encoding: 'utf8',
      });
    visync(['export', 'duckdb', '--out', 'views.sql']);
    expect(readFileSync(join(dir, 'views.sql'), 'utf8').split('\n').slice(0, 5)).toContain(line('--'));
    visync(['export', 'athena', '--root', 's3://lake/visync/', '--out', 'athena.sql']);
    expect(readFileSync(join(dir, 'athena.sql'), 'utf8').split('\n').slice(0, 5)).toContain(line('--'));
    visync(['export', 'athena', '--root', 's3://lake/visync/', '--split', 'athena']);
    for (const f of readdirSync(join(dir, 'athena')))
      expect(
        readFileSync(join(dir, 'athena', f), 'utf8')
          .split('\n')
          .slice(0, 5),
        f,
      ).toContain(line('--'));
    visync(['export', 'dbt', '--target', 'duckdb', '--out', 'dbt']);
    const yamls = ['dbt_project.yml', 'models/sources.yml'];
    for (const f of yamls)
      expect(readFileSync(join(dir, 'dbt', f), 'utf8').split('\n'), f).toContain(line('#'));
  });
});
