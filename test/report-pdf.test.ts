// A report's PDF read back with poppler (pdfinfo, pdftotext, pdftoppm): the real Chromium at
// /usr/bin/chromium prints a small self-contained HTML (headings, a table, an inline SVG, an
// embedded logo). The first page is saved as a PNG under test-results/ for a person to look at.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChromiumLaunchError,
  PdfError,
  PdfSession,
  renderPdf,
  withoutPdfDates,
} from '../src/report/render/pdf.js';
import { tempDir } from './helpers/harness.js';

const SAMPLE = readFileSync(new URL('./fixtures/report/pdf-sample.html', import.meta.url), 'utf8');
const SHOTS = new URL('../test-results/', import.meta.url).pathname;

function poppler(tool: string, args: string[], pdf: Buffer): string {
  const file = join(tempDir(), 'report.pdf');
  writeFileSync(file, pdf);
  return execFileSync(tool, [...args, file, ...(tool === 'pdftotext' ? ['-'] : [])], { encoding: 'utf8' });
}

function info(pdf: Buffer): Record<string, string> {
  const lines = poppler('pdfinfo', [], pdf).split('\n');
  return Object.fromEntries(lines.map((l) => l.split(/:\s+/, 2) as [string, string]).filter((p) => p[1]));
}

/** The outline's entry titles, in file order (Chromium writes them as plain literal strings). */
function outlineTitles(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  return [...text.matchAll(/<<\/Title \(([^)]*)\)[^>]*?\/Parent /g)].map((m) => m[1] as string);
}

let session: PdfSession;
beforeAll(async () => {
  session = await PdfSession.open('/usr/bin/chromium');
});
afterAll(async () => {
  await session?.close();
});

describe('report PDF', () => {
  it('has the headings, the table cells, "Page N of M" footers, the page size, tags and an outline', async () => {
    const pdf = await session.render(SAMPLE, { pageSize: 'A4', footerText: 'Northwind <Agency> & "Co"' });
    const meta = info(pdf);
    expect(meta['Page size']).toMatch(/\(A4\)$/);
    expect(meta.Tagged).toBe('yes');
    expect(meta.Pages).toBe('3');
    expect(meta.Title).toBe('Acme Visibility Report');

    const text = poppler('pdftotext', ['-layout'], pdf);
    for (const heading of [
      'Overview',
      'Key figures',
      'Trend',
      'Recommendations',
      'Open',
      'Done',
      'Reputation',
    ])
      expect(text).toContain(heading);
    expect(text).toMatch(/Overall score\s+53\.4\s+\+2\.1/);
    expect(text).toMatch(/Share of voice\s+27\.5%\s+-1\.0 pp/);
    // The SVG's own text is drawn as text, not as a picture of it.
    expect(text).toContain('Score trend chart');
    for (const n of [1, 2, 3]) expect(text).toContain(`Page ${n} of 3`);
    // The footer line is text, never markup.
    expect(text.match(/Northwind <Agency> & "Co"/g)).toHaveLength(3);

    expect(outlineTitles(pdf)).toEqual([
      'Key figures',
      'Trend',
      'Overview',
      'Open',
      'Done',
      'Recommendations',
      'Reputation',
    ]);
    // Tagged: the headings and the table are in the structure tree, for screen readers.
    const struct = poppler('pdfinfo', ['-struct'], pdf);
    expect(struct).toMatch(/^ {2}H1\b/m);
    expect(struct).toMatch(/^ {2}H2\b/m);
    expect(struct).toMatch(/^ {2}Table\b/m);

    mkdirSync(SHOTS, { recursive: true });
    const png = join(SHOTS, 'report-pdf-page1');
    const file = join(tempDir(), 'report.pdf');
    writeFileSync(file, pdf);
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', '-singlefile', file, png]);
    expect(readFileSync(`${png}.png`).subarray(1, 4).toString()).toBe('PNG');
  });

  it('takes the page size it is given (Letter); a 200-character footer wraps and the page numbers stay', async () => {
    const footer =
      `Prepared by Northwind \u0645\u0631\u062d\u0628\u0627 ${'Lorem ipsum dolor sit amet '.repeat(7)}END`.slice(
        -200,
      );
    expect(footer).toHaveLength(200);
    const pdf = await session.render(SAMPLE, { pageSize: 'Letter', footerText: footer });
    expect(info(pdf)['Page size']).toMatch(/^612 x 792 pts \(letter\)$/);
    const text = poppler('pdftotext', ['-layout'], pdf);
    for (const n of [1, 2, 3]) expect(text).toMatch(new RegExp(`END +Page ${n} of 3`));
  });

  it('prints the same bytes for the same HTML once the creation dates are set aside, in one browser or two, whatever is printed beside or before it', async () => {
    const o = { pageSize: 'A4', footerText: 'Northwind' } as const;
    // Browsers of their own, as `visync report` starts one (an empty endpoint: none), not the run's
    // shared one, which other test files print on at the same time (docs/reports-pdf.md: a shared
    // browser under load may number a PDF's structure elements differently).
    const mine = await PdfSession.open(undefined, '');
    await mine.render(SAMPLE.replace('53.4', '12.0'), o);
    // Printed at once, beside another report, in a session that printed others before.
    const [first, other] = await Promise.all([
      mine.render(SAMPLE, o),
      mine.render(SAMPLE.replace('53.4', '53.5'), o),
    ]);
    const again = await mine.render(SAMPLE, o).finally(() => mine.close());
    const own = await PdfSession.open(undefined, '');
    const second = await own.render(SAMPLE, o).finally(() => own.close());
    expect(first.toString('latin1')).toMatch(/\/CreationDate \(D:\d{14}/);
    expect(withoutPdfDates(first).equals(withoutPdfDates(second))).toBe(true);
    expect(withoutPdfDates(again).equals(withoutPdfDates(second))).toBe(true);
    // The comparison still sees a change of content.
    expect(withoutPdfDates(other).equals(withoutPdfDates(first))).toBe(false);
  });

  it('makes no request and runs no script: a remote image is refused, a script does nothing', async () => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end('no');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pixel.png`;
      const html = `<!doctype html><html><head><title>t</title><link rel="stylesheet" href="${url}?css"></head><body><h1>Remote</h1><img src="${url}" alt="pixel"><p id="p">static text</p><script>document.getElementById('p').textContent = 'SCRIPT RAN';</script></body></html>`;
      const blocked: string[] = [];
      const pdf = await session.render(html, { pageSize: 'A4', onBlockedRequest: (u) => blocked.push(u) });
      const text = poppler('pdftotext', ['-layout'], pdf);
      expect(text).toContain('static text');
      expect(text).not.toContain('SCRIPT RAN');
      expect(requests).toEqual([]);
      expect(blocked.sort()).toEqual([url, `${url}?css`]);
    } finally {
      server.close();
    }
  });

  it('reports asked for at once each get their own PDF, and a report that fails leaves the next one whole', async () => {
    const page = (name: string) =>
      `<!doctype html><html><head><title>${name}</title></head><body><h1>Client ${name}</h1><p>${name} only</p></body></html>`;
    const names = ['Alpha', 'Bravo', 'Charlie'];
    const pdfs = await Promise.all(names.map((n) => session.render(page(n), { pageSize: 'A4' })));
    pdfs.forEach((pdf, i) => {
      const text = poppler('pdftotext', ['-layout'], pdf);
      expect(text.match(/Client \w+/g)).toEqual([`Client ${names[i]}`]);
    });

    // A deadline too short for any page: one line, and the session prints the next report.
    const late = session.render(page('Delta'), { pageSize: 'A4', timeoutMs: 1 });
    await expect(late).rejects.toThrow(PdfError);
    await expect(late).rejects.toThrow(
      /^(Chromium did not print the PDF within 0\.001 s|could not print the PDF: .+)$/,
    );
    const after = poppler('pdftotext', ['-layout'], await session.render(page('Echo'), { pageSize: 'A4' }));
    expect(after).toContain('Client Echo');
    expect(after).not.toContain('Delta');
  });

  it('says in one line what to install when Chromium is not there or does not start', async () => {
    const missing = renderPdf(SAMPLE, { pageSize: 'A4', chromiumPath: '/nonexistent/chromium' });
    await expect(missing).rejects.toThrow(ChromiumLaunchError);
    await expect(missing).rejects.toThrow(
      /^Chromium not found at \/nonexistent\/chromium: apt-get install -y chromium, or set reports\.chromiumPath$/,
    );
    // A file that is not a browser: it exits at once.
    const notBrowser = PdfSession.open('/bin/false');
    await expect(notBrowser).rejects.toThrow(ChromiumLaunchError);
    await expect(notBrowser).rejects.toThrow(
      /^Chromium at \/bin\/false did not start \(.+\): apt-get install -y chromium, or set reports\.chromiumPath$/,
    );
    // A browser that went away under a session: one line, no stack of protocol messages.
    const gone = await PdfSession.open();
    await gone.close();
    const printed = gone.render(SAMPLE, { pageSize: 'A4' });
    await expect(printed).rejects.toThrow(PdfError);
    await expect(printed).rejects.toThrow(/^could not print the PDF: [^\n]+$/);
  });

  it('VISYNC_CHROMIUM_ENDPOINT: connects to that browser, and closing a session leaves it running for the next', async () => {
    const endpoint = process.env.VISYNC_CHROMIUM_ENDPOINT;
    expect(endpoint, 'the shared browser of test/setup/global-chromium.ts').toBeDefined();
    const first = await PdfSession.open(undefined, endpoint);
    expect(first.where).toMatch(/^VISYNC_CHROMIUM_ENDPOINT ws:\/\/[^/]+$/); // the secret path not shown
    const a = await first.render(SAMPLE, { pageSize: 'A4' });
    await first.close();
    const second = await PdfSession.open(undefined, endpoint);
    try {
      // Same bytes from a later session on the same browser: each session is a context of its own.
      const b = await second.render(SAMPLE, { pageSize: 'A4' });
      expect(withoutPdfDates(b).equals(withoutPdfDates(a))).toBe(true);
    } finally {
      await second.close();
    }
    // An endpoint where nothing answers: one line naming it.
    const nobody = PdfSession.open(undefined, 'ws://127.0.0.1:1/secret');
    await expect(nobody).rejects.toThrow(
      /^Chromium at VISYNC_CHROMIUM_ENDPOINT ws:\/\/127\.0\.0\.1:1 did not answer \(.+\): start the browser server VISYNC_CHROMIUM_ENDPOINT names, or unset it/,
    );
    await expect(nobody.catch((err: Error) => err.message)).resolves.not.toContain('secret');
  });
});
