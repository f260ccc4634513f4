#!/usr/bin/env node
// The installed command: runs the bundled JavaScript in dist/ (`npm run build`, scripts/build.mjs,
// which `npm ci` runs through the prepare script). bin/visync-dev.js runs the TypeScript sources.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { runCli } from './run-cli.js';
import { reexecOnSupportedNode } from './supported-node.js';

// Node 22+: V8 keeps the compiled code of every module loaded (ours and the dependencies') in the
// OS temp dir, so later starts skip compiling them. Node 20 has no such API and compiles each time.
module.enableCompileCache?.();

if (!reexecOnSupportedNode()) {
  const compiled = new URL('../dist/visync.js', import.meta.url);
  if (!existsSync(compiled)) {
    process.stderr.write(
      'visync: dist/ is missing: run `npm run build` (bin/visync-dev.js runs the sources)\n',
    );
    process.exit(1);
  }
  await runCli(() => import(compiled.href));
}
