// A note's image (Markdown `![alt](url)`) on the client's page: its alt text, escaped, never a "!"
// and a live link to the picture, never an <img> (the page fetches nothing). The page is written to a
// file and opened in headless Chromium, as a client reads it (src/report/summary/notes.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../src/report/render/html.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import * as h from './helpers/harness.js';
import { openInChromium } from './helpers/report-nights.js';
import { report } from './helpers/report-workspace.js';

describe("an image in the account manager's notes", () => {
  it('reads as its alt text, escaped, with no link to the picture and nothing fetched', async () => {
    const notes =
      'See the chart: ![FAQ <clicks> & "visits"](https://tracker.example/p.png) and [our site](https://agency.example/).\n\n![](https://tracker.example/empty.png)';
    const file = join(h.tempDir(), 'report.html');
    writeFileSync(file, await renderHtml(report(), DEFAULT_STYLE, { notes }));
    const { browser, page, requests } = await openInChromium(file);
    try {
      const text = (await page.locator('.notes').innerText()).replace(/\s+/g, ' ');
      expect(text).toContain('See the chart: FAQ <clicks> & "visits" and our site.');
      expect(text).not.toContain('!');
      const links = await page.locator('.notes a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(links).toEqual(['https://agency.example/']);
      expect(await page.locator('.notes img').count()).toBe(0);
      expect(requests()).toBe(0);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
