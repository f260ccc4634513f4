// dt-sql-parser's Hive and Trino grammars, for checking the SQL the exports write. The package ships
// 20 MB of untranspiled ESM with extension-less imports, which Node cannot load as it is: vitest
// would transform it file by file in every test run (about 20 s of CPU). It is bundled once by
// esbuild into node_modules/.cache (per package version) and loaded from there as plain ESM.
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

type Grammars = typeof import('dt-sql-parser');

const ROOT = new URL('../..', import.meta.url).pathname;

export async function sqlGrammars(): Promise<Pick<Grammars, 'HiveSQL' | 'TrinoSQL'>> {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('dt-sql-parser');
  const pkg = JSON.parse(readFileSync(join(entry, '../../package.json'), 'utf8')) as { version: string };
  const dir = join(ROOT, 'node_modules/.cache/visync-test');
  const out = join(dir, `dt-sql-parser-${pkg.version}.mjs`);
  if (!existsSync(out)) {
    mkdirSync(dir, { recursive: true });
    // Written under a name of its own, then renamed: two test files may build it at once.
    const tmp = `${out}.${process.pid}.tmp.mjs`;
    await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: tmp,
      logLevel: 'error',
    });
    renameSync(tmp, out);
  }
  return (await import(pathToFileURL(out).href)) as Grammars;
}
