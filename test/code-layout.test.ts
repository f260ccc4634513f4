// The code's shape: imports point down the layer list kept here (docs/development.md "### Layers"
// is checked to state the same list), no import cycle between files or between the listed
// folders, one home for delivery, a nightly sync that knows nothing of brand watch, jobs/ without
// run logic, a walk of one night (docs/development.md) and comments' relative paths that name files
// that exist, and no source file but a declaration over 400 lines.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * The layers, bottom first: a file may import from its own layer and the layers below it. Each
 * path is a unit: no import cycle between units, even in one layer. docs/development.md
 * "### Layers" lists the same paths, checked below.
 */
const LAYERS: string[][] = [
  ['src/util', 'src/log-formats.ts', 'src/log.ts', 'src/metrics'],
  ['src/api'],
  ['src/catalogue'],
  ['src/config'],
  ['src/sinks'],
  ['src/records'],
  ['src/land', 'src/normalise'],
  ['src/extract'],
  ['src/curate'],
  ['src/warehouse', 'src/export'],
  ['src/history'],
  ['src/events'],
  ['src/report'],
  ['src/delivery'],
  ['jobs'],
  ['src/run'],
  ['src/run/inline', 'src/run/queued'],
  ['src/doctor'],
  ['src/cli', 'src/simulator'],
];

/** The numbered list under "### Layers" in docs/development.md: each line's backticked paths. */
function documentedLayers(): string[][] {
  const doc = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
  const section = doc.split('### Layers')[1]?.split(/\n#{2,3} /)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => /^\d+\. `/.test(line))
    .map((line) => [...(line.split(':')[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

/** The longest listed path that is the file or a folder holding it: the file's unit. */
function unitOf(file: string, order: string[][]): string | undefined {
  let best: string | undefined;
  for (const p of order.flat()) {
    const holds = file === p || file.startsWith(`${p}/`);
    if (holds && p.length > (best?.length ?? -1)) best = p;
  }
  return best;
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

/** The homes src/delivery must have: each a file or folder whose path starts so. */
const DELIVERY_HOMES = ['mail', 'webhooks', 'digest', 'claims'];
/** What jobs/ (BullMQ and Redis plumbing) must not import: the run and its stages. */
const RUN_LOGIC = ['src/run/', 'src/extract/', 'src/curate/', 'src/events/', 'src/report/'];
const WALK_HEADING = '### One night, file by file';

/** Groups of files that import each other in a loop (Tarjan's strongly connected components). */
function fileCycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of importsOf(file).filter((t) => FILES.includes(t))) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const file of FILES) if (!index.has(file)) visit(file);
  return groups;
}

describe('code layout', () => {
  const order = LAYERS;

  it('docs/development.md lists the same layers', () => {
    expect(documentedLayers()).toEqual(LAYERS);
  });

  it('puts every source file in a layer', () => {
    expect(FILES.filter((f) => layerOf(f, order) === undefined)).toEqual([]);
  });

  it('has no import of a higher layer', () => {
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

  it('has no import cycle between the listed folders, even within one layer', () => {
    const edges = new Map<string, Set<string>>();
    for (const file of FILES) {
      const from = unitOf(file, order)!;
      for (const target of importsOf(file)) {
        const to = unitOf(relative('.', target), order);
        if (to === undefined || to === from) continue;
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)!.add(to);
      }
    }
    const reaches = (start: string, goal: string): boolean => {
      const seen = new Set<string>();
      const todo = [start];
      while (todo.length > 0) {
        const unit = todo.pop()!;
        if (unit === goal) return true;
        if (seen.has(unit)) continue;
        seen.add(unit);
        todo.push(...(edges.get(unit) ?? []));
      }
      return false;
    };
    const cycles = [...edges].flatMap(([from, tos]) =>
      [...tos].filter((to) => reaches(to, from)).map((to) => `${from} <-> ${to}`),
    );
    expect(cycles).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(fileCycles()).toEqual([]);
  });

  it('sends to people from src/delivery alone: mail, webhooks, the digest and claims live there', () => {
    const sends = (f: string) =>
      /(?:\bfrom|\bimport\s*\(?)\s*['"]nodemailer['"]/.test(readFileSync(join(ROOT, f), 'utf8'));
    expect(FILES.filter(sends)).not.toEqual([]);
    expect(FILES.filter((f) => sends(f) && !f.startsWith('src/delivery/'))).toEqual([]);
    for (const home of DELIVERY_HOMES)
      expect(
        FILES.filter((f) => f.startsWith(`src/delivery/${home}`)),
        home,
      ).not.toEqual([]);
    const reportSends = FILES.filter(
      (f) => f.startsWith('src/report/') && /mail|deliver|claim|webhook|schedule/.test(f),
    );
    expect(reportSends).toEqual([]);
  });

  it('keeps the nightly sync free of brand watch and jobs/ free of run logic', () => {
    const importing = (from: string, to: string[]) =>
      FILES.filter((f) => f.startsWith(from)).flatMap((f) =>
        importsOf(f)
          .filter((t) => to.some((dir) => t.startsWith(dir)))
          .map((t) => `${f} -> ${t}`),
      );
    expect(importing('src/curate/', ['src/events/'])).toEqual([]);
    expect(importing('jobs/', RUN_LOGIC)).toEqual([]);
  });

  it('walks one nightly run through files that exist, each named once', () => {
    const walk = readFileSync(join(ROOT, 'docs/development.md'), 'utf8').split(WALK_HEADING)[1];
    const named = [...(walk?.split(/\n#{2,3} /)[0] ?? '').matchAll(/`((?:src|jobs)\/[^`]+\.ts)`/g)].map(
      (m) => m[1]!,
    );
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((f) => !FILES.includes(f))).toEqual([]);
    expect(named.filter((f, i) => named.indexOf(f) !== i)).toEqual([]);
  });

  it('points at files that exist where a comment names a sibling by a relative path', () => {
    const stale = FILES.flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/\.\.?\/[a-z0-9/-]+\.ts\b/g)]
        .map((m) => m[0])
        .filter((path) => !existsSync(join(ROOT, dirname(f), path)))
        .map((path) => `${f}: ${path}`),
    );
    expect(stale).toEqual([]);
  });

  it('finds the imports it checks', () => {
    // A regex that matched nothing would pass the test above on any code.
    expect(importsOf('src/doctor/run-doctor.ts')).toContain('src/doctor/probes.ts');
    expect(importsOf('src/cli/doctor.ts')).toContain('src/doctor/redis-probes.ts');
  });

  it(`has no source file over ${MAX_LINES} lines but declarations`, () => {
    const long = FILES.filter((f) => !DECLARATIONS.includes(f))
      .map((f) => `${f}: ${readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1} lines`)
      .filter((line) => Number(line.split(': ')[1]!.split(' ')[0]) > MAX_LINES);
    expect(long).toEqual([]);
  });
});
