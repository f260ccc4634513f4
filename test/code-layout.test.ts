// The code's shape as docs/development.md "Code layout" states it: imports point down the layer
// list (read from that file, so the doc and the test cannot disagree), and no source file but a
// declaration runs over 400 lines.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const MAX_LINES = 400;
/** Tables, the config schema and the simulator's data: long because they declare, not because they do. */
const DECLARATIONS = ['src/catalogue/tables.ts', 'src/config/schema.ts', 'src/simulator/data.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const FILES = [...sourceFiles('src'), ...sourceFiles('jobs')];

/** The numbered list under "### Layers": each line's backticked paths, bottom layer first. */
function layers(): string[][] {
  const doc = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
  const section = doc.split('### Layers')[1]?.split(/\n#{2,3} /)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => /^\d+\. `/.test(line))
    .map((line) => [...(line.split(':')[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

/** The layer of the longest listed path that is the file or a folder holding it. */
function layerOf(file: string, order: string[][]): number | undefined {
  let best: { layer: number; length: number } | undefined;
  order.forEach((paths, layer) => {
    for (const p of paths) {
      const holds = file === p || file.startsWith(`${p}/`);
      if (holds && p.length > (best?.length ?? -1)) best = { layer, length: p.length };
    }
  });
  return best?.layer;
}

/** Relative imports, static and dynamic, type-only ones too, as repo paths of .ts files. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:\bfrom|\bimport\s*\(?)\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
    normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts'),
  );
}

describe('code layout (docs/development.md)', () => {
  const order = layers();

  it('lists the layers', () => {
    expect(order.length).toBeGreaterThan(10);
    expect(order.flat()).toContain('src/api');
    expect(order.flat()).toContain('jobs');
  });

  it('puts every source file in a layer', () => {
    expect(FILES.filter((f) => layerOf(f, order) === undefined)).toEqual([]);
  });

  it('has no import of a higher layer: src/api and src/ops import nothing above them', () => {
    const upward: string[] = [];
    for (const file of FILES) {
      const from = layerOf(file, order)!;
      for (const target of importsOf(file)) {
        const to = layerOf(relative('.', target), order);
        if (to !== undefined && to > from)
          upward.push(`${file} -> ${target} (layer ${from + 1} -> ${to + 1})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('finds the imports it checks', () => {
    // A regex that matched nothing would pass the test above on any code.
    expect(importsOf('src/ops/doctor/run-doctor.ts')).toContain('src/ops/doctor/probes.ts');
    expect(importsOf('src/cli/doctor.ts')).toContain('jobs/doctor-probes.ts');
  });

  it(`has no source file over ${MAX_LINES} lines but declarations`, () => {
    const long = FILES.filter((f) => !DECLARATIONS.includes(f))
      .map((f) => `${f}: ${readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1} lines`)
      .filter((line) => Number(line.split(': ')[1]!.split(' ')[0]) > MAX_LINES);
    expect(long).toEqual([]);
  });
});
