// undici's `request`, imported statically. A dynamic `import('undici')` works from the sources but
// not from the bundle: esbuild turns a CommonJS package reached only by `import()` into a chunk
// whose sole export is `default`, so the name came out undefined in dist/ (test/dist-imports.test.ts).
// Importing this module of ours lazily keeps undici off the start-up path all the same.
export { Agent, request } from 'undici';
