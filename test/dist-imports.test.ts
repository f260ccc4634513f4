// What ships is what is tested (issue #29): a fresh build, checked by scripts/check-dist-imports.mjs
// under the Node it runs on, gets every name its dynamic imports take. The same check on a small
// bundle of a CommonJS file reached only through `import()` (the shape that broke alerts) fails,
// naming the chunk and the name.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { builtVisync, NODE22, ROOT } from './helpers/built-bin.js';
import { tempDir } from './helpers/harness.js';

const CHECK = join(ROOT, 'scripts/check-dist-imports.mjs');

function check(dist: string) {
  const r = spawnSync(NODE22, [CHECK, dist], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('the built dist/', () => {
  it('gets every name its dynamic imports take, webhook-request.js (undici) included', () => {
    const { dist } = builtVisync();
    const r = check(dist);
    expect(r.out).toMatch(/^dist imports ok: \d+ names from \d+ chunks$/m);
    expect(r.code).toBe(0);
    // The alert's request and the Promise.all imports of the commands are among those checked.
    const [, names] = /ok: (\d+) names/.exec(r.out) as RegExpExecArray;
    expect(Number(names)).toBeGreaterThan(50);
  }, 60_000);

  it('fails on a CommonJS file bundled as a default-only chunk, naming it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'dep.cjs'), 'exports.request = () => "sent";\n');
    writeFileSync(
      join(dir, 'entry.mjs'),
      "export async function send() {\n  const { request } = await import('./dep.cjs');\n  return request();\n}\n",
    );
    const out = join(dir, 'dist');
    mkdirSync(out);
    await build({
      entryPoints: { app: join(dir, 'entry.mjs') },
      outdir: out,
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      logLevel: 'silent',
    });
    const r = check(out);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /chunks\/dep-\w+\.js has no export "request" \(taken in app\.js; it exports default\)/,
    );
  });

  it('says to build first when there is no dist/', () => {
    expect(check(join(tempDir(), 'dist'))).toEqual({ code: 2, out: expect.stringContaining('build first') });
  });
});
