// The one way tests and benchmarks start the CLI as a process: bin/visync-dev.js, which runs the
// TypeScript sources through tsx, so no test ever runs a stale dist/. The compiled bin
// (bin/visync.js) is tested as users get it, from the packed tarball (test/package.test.ts), and
// over a private build by the delivery tests (test/helpers/built-bin.ts).
export const DEV_BIN = new URL('../../bin/visync-dev.js', import.meta.url).pathname;
