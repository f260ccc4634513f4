// The PDF's document information (what a reader's File > Properties shows): Chromium writes the
// page's <title> as Title, its own user agent ("... HeadlessChrome/156 ...") as Creator and no
// Author. The page names its author in <meta name="author"> (the agency, src/report/render/html.ts and
// src/report/overview/page.ts); this puts it in the PDF as Author and Creator and drops the user
// agent. It appends an incremental update (a new Info object, ./pdf-update.ts), so Chromium's bytes
// before it, its tags and outline, stay as they were. Pure.
import { appendUpdate, lastTrailer, literalEnd } from './pdf-update.js';

/** The Info entries Chromium wrote that are kept as written: the title and the dates, the producer. */
const KEPT = ['Title', 'Producer', 'CreationDate', 'ModDate'] as const;

/** `<FEFF...>`: a text string in UTF-16BE, which any PDF reader takes for any script. */
export function pdfTextString(s: string): string {
  let hex = 'FEFF';
  for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase();
  return `<${hex}>`;
}

/** The raw value tokens of a dictionary's `/Key value` entries whose values are strings or names. */
function dictEntries(dict: string): Map<string, string> {
  const out = new Map<string, string>();
  const key = /\/([A-Za-z]+)\s*/y;
  for (let i = 0; i < dict.length; ) {
    key.lastIndex = i;
    const m = key.exec(dict);
    if (!m) {
      i++;
      continue;
    }
    const at = key.lastIndex;
    const end = dict[at] === '(' ? literalEnd(dict, at) : dict[at] === '<' ? dict.indexOf('>', at) + 1 : at;
    if (end > at) out.set(m[1] as string, dict.slice(at, end));
    i = Math.max(end, at);
  }
  return out;
}

/**
 * The PDF with `author` as its Author and Creator (null: neither), the Title, Producer and dates
 * Chromium wrote kept. A PDF whose trailer is not the classic one Chromium writes is returned as it
 * is: metadata is never worth a broken file.
 */
export function withAuthor(pdf: Buffer, author: string | null): Buffer {
  const text = pdf.toString('latin1');
  const trailer = lastTrailer(text);
  if (!trailer?.info) return pdf;
  const objAt = text.lastIndexOf(`\n${trailer.info} obj`);
  const objEnd = text.indexOf('endobj', objAt);
  if (objAt === -1 || objEnd === -1) return pdf;
  const old = dictEntries(text.slice(text.indexOf('<<', objAt) + 2, objEnd));
  const entries = KEPT.flatMap((k) => (old.has(k) ? [`/${k} ${old.get(k)}`] : []));
  if (author !== null) entries.push(`/Author ${pdfTextString(author)}`, `/Creator ${pdfTextString(author)}`);
  const id = Number(trailer.info.split(/\s+/)[0]);
  // The new Info is generation 0, as before (Chromium writes every object so).
  return appendUpdate(pdf, trailer, [{ id, generation: 0, body: `<<${entries.join('\n')}>>` }], `${id} 0`);
}
