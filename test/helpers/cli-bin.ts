// bin/visync-dev.js runs the TypeScript sources through tsx: what `npm run dev` and the benchmarks'
// `--bin dev` start. Tests start the CLI as a process through this run's bundle instead
// (`builtVisync()` in test/helpers/built-bin.ts, built once per run by test/setup/global-bundle.ts from
// the current sources, so never stale): tsx compiles the sources at every start, about 0.3 s of CPU
// more for `--help` and more for a worker. The bundle is also tested as users get it, from the packed
// tarball (test/package.test.ts).
export const DEV_BIN = new URL('../../bin/visync-dev.js', import.meta.url).pathname;
