// A PDF read back page by page with poppler: each page's text (`pdftotext -layout`) and how far down
// its printable area the body's lowest text line reaches (`pdftotext -bbox`: word boxes in points),
// the footer Chromium draws in the bottom margin set apart.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The page margins src/report/render/pdf.ts prints with, in points (1 mm = 72 / 25.4 pt). */
const MM = 72 / 25.4;
const TOP = 16 * MM;
const BOTTOM = 18 * MM;

export interface PdfPage {
  /** The page's text, laid out (pdftotext -layout). */
  text: string;
  /** The body's text lines, top to bottom, without the footer in the bottom margin. */
  bodyLines: string[];
  /** The footer's words in the bottom margin, joined by spaces. */
  footer: string;
  /** How much of the printable height the body's text reaches down to, 0 to 1. */
  fill: number;
}

export function pdfPages(pdf: Uint8Array): PdfPage[] {
  const dir = mkdtempSync(join(tmpdir(), 'visync-pdf-'));
  try {
    const file = join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    return readPages(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function readPages(file: string): PdfPage[] {
  const bbox = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  // One -layout call for the whole file: pages end in a form feed.
  const laidOut = execFileSync('pdftotext', ['-layout', file, '-'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  }).split('\f');
  const pages = [...bbox.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)];
  return pages.map((m, i) => {
    const height = Number(m[2]);
    const words = [
      ...(m[3] as string).matchAll(
        /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
      ),
    ].map((w) => ({ y: Number(w[2]), yMax: Number(w[4]), word: unescapeXml(w[5] as string) }));
    const inFooter = (w: { y: number }) => w.y >= height - BOTTOM;
    const body = words.filter((w) => !inFooter(w));
    const lowest = Math.max(TOP, ...body.map((w) => w.yMax));
    const text = laidOut[i] ?? '';
    const lines = new Map<number, string[]>();
    for (const w of body) {
      const key = Math.round(w.y);
      lines.set(key, [...(lines.get(key) ?? []), w.word]);
    }
    return {
      text,
      bodyLines: [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([, ws]) => ws.join(' ')),
      footer: words
        .filter(inFooter)
        .map((w) => w.word)
        .join(' '),
      fill: (lowest - TOP) / (height - TOP - BOTTOM),
    };
  });
}

function unescapeXml(s: string): string {
  return s.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e] as string,
  );
}

/** The link annotations' URIs of a PDF, page by page, as poppler reads them (`pdfinfo -url`). */
export function pdfLinks(file: string): string[] {
  return execFileSync('pdfinfo', ['-url', file])
    .toString()
    .split('\n')
    .slice(1)
    .map((l) => /^\s*\d+\s+Annotation\s+(\S+)/.exec(l)?.[1])
    .filter((u): u is string => u !== undefined);
}
