// A printed page's links as its HTML has them. Chromium prints a page from the made-up origin
// ./pdf.ts serves it from and writes each link annotation's URI resolved against it
// (`http://report-3.invalid/.../brand%3Dws_1/period%3D2026-11/report.html`), a dead link in any
// reader. This writes each such URI back relative to the page (`../brand%3Dws_1/...`), which a reader
// resolves against the PDF's own place (PDF 1.7 section 12.6.4.7: a URI action's relative URI is
// taken relative to the document), so the overview's PDF opens the reports beside it as its HTML
// does; a link to another origin (an https:// address) is kept as written. New versions of the
// annotation objects go in an incremental update (./pdf-update.ts). Pure.
import { appendUpdate, lastTrailer, literalEnd, type PdfObject } from './pdf-update.js';

/** `link` relative to the folder `page` is in, when both are of one origin; else `link` itself. */
function relativeLink(page: string, link: string): string {
  let from: URL;
  let to: URL;
  try {
    from = new URL(page);
    to = new URL(link);
  } catch {
    return link;
  }
  if (from.origin !== to.origin) return link;
  const folders = from.pathname.split('/').slice(1, -1);
  const path = to.pathname.split('/').slice(1);
  const file = path.pop() ?? '';
  let same = 0;
  while (same < folders.length && same < path.length && folders[same] === path[same]) same++;
  const rel = `${'../'.repeat(folders.length - same)}${path
    .slice(same)
    .map((f) => `${f}/`)
    .join('')}${file}${to.search}${to.hash}`;
  return rel === '' ? './' : rel;
}

/** A literal string's bytes (PDF 1.7 section 7.3.4.2): escapes read, as latin1 text. */
function literalText(s: string): string {
  const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };
  return s
    .slice(1, -1)
    .replace(/\\(?:([0-7]{1,3})|\r?\n|(.))/gs, (_, octal?: string, c?: string) =>
      octal
        ? String.fromCharCode(Number.parseInt(octal, 8) & 0xff)
        : c === undefined
          ? ''
          : (escapes[c] ?? c),
    );
}

/** Text as a literal string: backslash and parentheses escaped (a URI is ASCII). */
const literal = (s: string) => `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;

/**
 * The PDF with every link annotation whose URI is of `page`'s origin pointing relative to `page`
 * instead; a PDF with none, or not written as Chromium writes one, is returned as it is.
 */
export function withRelativeLinks(pdf: Buffer, page: string): Buffer {
  const text = pdf.toString('latin1');
  const trailer = lastTrailer(text);
  if (!trailer) return pdf;
  const changed: PdfObject[] = [];
  for (const m of text.matchAll(
    /\n(\d+) (\d+) obj\n(<<\/Type \/Annot\n\/Subtype \/Link\n[\s\S]*?)\nendobj/g,
  )) {
    const body = m[3] as string;
    const at = body.indexOf('/URI (');
    if (at === -1) continue;
    const start = at + '/URI '.length;
    const end = literalEnd(body, start);
    if (end === -1) continue;
    const uri = literalText(body.slice(start, end));
    const rel = relativeLink(page, uri);
    if (rel === uri) continue;
    changed.push({
      id: Number(m[1]),
      generation: Number(m[2]),
      body: `${body.slice(0, start)}${literal(rel)}${body.slice(end)}`,
    });
  }
  return changed.length === 0 ? pdf : appendUpdate(pdf, trailer, changed);
}
