// A Node.js binary of one release line, from the npm registry (`node-<platform>-<arch>`, the
// package the `node` package installs per platform), for tests of other Node lines than the one
// the suite runs on. Installed from the npm cache when it is there.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function installNodeBinary(line: string, parent: string): string {
  const dir = join(parent, `node-${line}-binary`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "name": "node-binary", "private": true }\n');
  const name = `node-${process.platform}-${process.arch}`;
  execFileSync(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', `${name}@${line}`],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return join(dir, 'node_modules', name, 'bin', 'node');
}
