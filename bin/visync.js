#!/usr/bin/env node
// Runs the TypeScript sources through tsx so `npx visync` works straight after `npm ci`,
// with no build step to forget.
import { register } from 'tsx/esm/api';

register();
// `visync --help | head` closes stdout early: that is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
