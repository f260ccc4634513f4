// Regenerates docs/tables.md from the catalogue: `npx tsx scripts/gen-docs.ts`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTablesDoc } from '../src/catalogue/index.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'tables.md');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, renderTablesDoc());
console.log(`wrote ${target}`);
