#!/usr/bin/env node
// Development entry: runs the TypeScript sources through tsx, so tests and `npm run dev` never run
// a stale dist/. Installed users run bin/visync.js (compiled).
import { register } from 'tsx/esm/api';
import { runCli } from './run-cli.js';
import { reexecOnSupportedNode } from './supported-node.js';

if (!reexecOnSupportedNode()) {
  register();
  await runCli(() => import('../src/cli/main.ts'));
}
