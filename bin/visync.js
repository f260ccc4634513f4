#!/usr/bin/env node
// Runs the TypeScript sources through tsx so `npx visync` works straight after `npm ci`,
// with no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
