// The bin a benchmark starts the CLI through (--bin).
import { execFileSync } from 'node:child_process';
import { DEV_BIN } from '../../test/helpers/cli-bin.js';

/** `built`: `npm run build` first, then bin/visync.js (the bundle users install and run); `dev`:
 *  bin/visync-dev.js (the sources through tsx); anything else: the path of another checkout's bin. */
export function binToMeasure(bin: string): string {
  if (bin === 'dev') return DEV_BIN;
  if (bin !== 'built') return bin;
  execFileSync(process.execPath, [new URL('../../scripts/build.mjs', import.meta.url).pathname], {
    stdio: 'inherit',
  });
  return new URL('../../bin/visync.js', import.meta.url).pathname;
}
