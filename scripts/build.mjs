// `npm run build`: bundles the CLI into dist/ with esbuild, one file per lazily imported command
// (code splitting keeps `import()` boundaries, so `--help` still loads no cloud client).
// Why a bundle: Node resolves, reads and links every ES module file on its own; the worker's
// ~400 files cost more CPU at start than the code they hold (docs/development.md "Start-up"). Packages that
// load files or native code by path at run time, and the big optional clients, stay external
// and are loaded from node_modules as usual.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const EXTERNAL = [
  '@aws-sdk/*',
  '@smithy/*',
  '@google-cloud/*',
  'google-auth-library',
  '@bull-board/*',
  'bullmq',
  'ioredis',
  'pino',
  'pino-pretty',
  'thread-stream',
  // Starts its driver and reads its own files by path.
  'playwright-core',
  // CommonJS with ~40 packages of its own (zip, XML, streams), loaded only for report.xlsx: bundled it
  // would add ~1 MB to a chunk for a format few runs ask for.
  'exceljs',
];

// Built beside dist/ and swapped in: a `visync` started from dist/ while a build runs (`npm pack`
// in test/package.test.ts beside the tests that start bin/visync.js) never finds it missing.
// `node scripts/build.mjs DIR` builds into DIR instead: the tests of the built bin build a private
// copy (test/helpers/built-bin.ts), so no other test's build swaps it under them.
const dist = process.argv[2] ? pathToFileURL(resolve(process.argv[2])) : new URL('../dist', import.meta.url);
const fresh = new URL(`${dist.href}.${process.pid}`);
const old = new URL(`${dist.href}.${process.pid}.old`);
rmSync(fresh, { recursive: true, force: true });
await build({
  entryPoints: { visync: 'src/cli/main.ts' },
  outdir: fresh.pathname,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: EXTERNAL,
  // CommonJS dependencies bundled into ES modules call require(): give them Node's.
  banner: {
    js: "import { createRequire as __visyncRequire } from 'node:module'; const require = __visyncRequire(import.meta.url);",
  },
  sourcemap: true,
  logLevel: 'warning',
});
if (existsSync(dist)) renameSync(dist, old);
renameSync(fresh, dist);
rmSync(old, { recursive: true, force: true });
