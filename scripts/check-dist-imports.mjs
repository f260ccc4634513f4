#!/usr/bin/env node
// Checks a bundle (dist/): every name the code takes from a dynamic `import()` of one of its own
// chunks must be an export of that chunk. esbuild turns a CommonJS package reached only through
// `import()` into a chunk whose sole export is `default`: the sources work, the build gets
// `undefined` (issue #29: the built visync never delivered an alert). Run it with the Node the
// built bin runs on:
//   node_modules/node/bin/node scripts/check-dist-imports.mjs [DIST]   (default: dist)
// Exit 0: every name found; 1: names missing; 2: no such folder. test/dist-imports.test.ts runs it on
// a fresh build. It reads the three shapes esbuild writes (not minified):
//   const { a, b: c } = await import("./x.js")
//   const [{ a }, { b }] = await Promise.all([import("./x.js"), import("./y.js")])
//   (await import("./x.js")).a
// A namespace kept in a variable (`const m = await import(...)`) is imported but its names are not
// followed.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const IDENT = /^[A-Za-z_$][\w$]*$/;
const LOCAL = /^import\(\s*"(\.{1,2}\/[^"]+)"\s*\)$/;

/** The names of a destructuring pattern `{ a, b: c, ...rest }` (its keys). */
function patternNames(pattern) {
  return pattern
    .slice(1, -1)
    .split(',')
    .map((s) =>
      s
        .trim()
        .split(/\s*:\s*/)[0]
        .trim(),
    )
    .filter((s) => IDENT.test(s));
}

/** Splits `text` at the commas outside brackets, parentheses, braces and strings. */
function topLevel(text) {
  const parts = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter(Boolean);
}

/** The index of the bracket closing the one at `open` (or opening the one at a closing `open`, backwards). */
function matching(text, open) {
  const pairs = { '[': ']', '(': ')', '{': '}', ']': '[', ')': '(', '}': '{' };
  const step = '[({'.includes(text[open]) ? 1 : -1;
  let depth = 0;
  for (let i = open; i >= 0 && i < text.length; i += step) {
    if (text[i] === text[open]) depth++;
    else if (text[i] === pairs[text[open]] && --depth === 0) return i;
  }
  return -1;
}

/** `[specifier, name]` of every name `text` takes from a dynamic import of a local chunk. */
export function takenNames(text) {
  const taken = [];
  for (const m of text.matchAll(/\{([^{}]{1,400})\}\s*=\s*await\s+import\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g))
    for (const n of patternNames(`{${m[1]}}`)) taken.push([m[2], n]);
  for (const m of text.matchAll(/\(await\s+import\(\s*"(\.{1,2}\/[^"]+)"\s*\)\)\.([A-Za-z_$][\w$]*)/g))
    taken.push([m[1], m[2]]);
  for (const m of text.matchAll(/\]\s*=\s*await\s+Promise\.all\(\s*\[/g)) {
    const patternEnd = m.index;
    const patternStart = matching(text, patternEnd);
    const listStart = m.index + m[0].length - 1;
    const listEnd = matching(text, listStart);
    if (patternStart < 0 || listEnd < 0) continue;
    const names = topLevel(text.slice(patternStart + 1, patternEnd));
    const imports = topLevel(text.slice(listStart + 1, listEnd));
    names.forEach((pattern, i) => {
      const spec = LOCAL.exec(imports[i] ?? '')?.[1];
      if (spec && pattern.startsWith('{')) for (const n of patternNames(pattern)) taken.push([spec, n]);
    });
  }
  return taken;
}

/** Every name missing from the chunk it is taken from, as lines; and how many names were checked. */
export async function checkDistImports(dist) {
  const files = fs
    .readdirSync(dist, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(dist, f));
  const wanted = new Map(); // chunk path -> Map(name -> first file that takes it)
  for (const f of files) {
    for (const [spec, name] of takenNames(fs.readFileSync(f, 'utf8'))) {
      const target = path.resolve(path.dirname(f), spec);
      if (!wanted.has(target)) wanted.set(target, new Map());
      if (!wanted.get(target).has(name)) wanted.get(target).set(name, path.relative(dist, f));
    }
  }
  const missing = [];
  let names = 0;
  for (const [target, taken] of wanted) {
    names += taken.size;
    let mod;
    try {
      mod = await import(pathToFileURL(target).href);
    } catch (e) {
      missing.push(
        `${path.relative(dist, target)}: cannot be imported (${String(e.message).split('\n')[0]})`,
      );
      continue;
    }
    for (const [n, from] of taken)
      if (!(n in mod))
        missing.push(
          `${path.relative(dist, target)} has no export "${n}" (taken in ${from}; it exports ${Object.keys(mod).slice(0, 4).join(', ') || 'nothing'})`,
        );
  }
  return { chunks: wanted.size, names, missing };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dist = path.resolve(process.argv[2] ?? 'dist');
  if (!fs.existsSync(dist)) {
    console.log(`no ${path.relative(process.cwd(), dist) || dist}: build first (npm run build)`);
    process.exit(2);
  }
  const r = await checkDistImports(dist);
  if (r.missing.length) {
    console.log(`${r.missing.length} names that dynamic imports in the build take are missing:`);
    for (const m of r.missing) console.log(`- ${m}`);
    process.exit(1);
  }
  console.log(`dist imports ok: ${r.names} names from ${r.chunks} chunks`);
}
