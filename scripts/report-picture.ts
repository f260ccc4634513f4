// README's picture of a client report (docs/reports.md, "Status"): the first screen of a
// report.html that `npm run demo` wrote, in headless Chromium with JavaScript off.
// Usage: npx tsx scripts/report-picture.ts PATH/report.html [docs/images/report.png]
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { DEFAULT_CHROMIUM_PATH } from '../src/report/render/pdf.js';

const [html, out = 'docs/images/report.png'] = process.argv.slice(2);
if (!html) throw new Error('usage: npx tsx scripts/report-picture.ts PATH/report.html [OUT.png]');
const browser = await chromium.launch({ executablePath: DEFAULT_CHROMIUM_PATH });
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, javaScriptEnabled: false });
  await page.setContent(readFileSync(html, 'utf8'));
  await page.screenshot({ path: out });
} finally {
  await browser.close();
}
console.log(out);
