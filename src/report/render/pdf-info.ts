// The PDF's document information (what a reader's File > Properties shows): Chromium writes the
// page's <title> as Title, its own user agent ("... HeadlessChrome/156 ...") as Creator and no
// Author. The page names its author in <meta name="author"> (the agency, src/report/render/html.ts and
// src/report/overview/page.ts); this puts it in the PDF as Author and Creator and drops the user
// agent. It appends an incremental update (a new Info object, an xref section and a trailer pointing
// at the previous one, PDF 1.7 section 7.5.6), so Chromium's bytes before it, its tags and outline,
// stay as they were. Pure.

/** The Info entries Chromium wrote that are kept as written: the title and the dates, the producer. */
const KEPT = ['Title', 'Producer', 'CreationDate', 'ModDate'] as const;

/** `<FEFF...>`: a text string in UTF-16BE, which any PDF reader takes for any script. */
export function pdfTextString(s: string): string {
  let hex = 'FEFF';
  for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase();
  return `<${hex}>`;
}

/** The end of a literal string starting at `start` (its `(`): nested parentheses and escapes. */
function literalEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return -1;
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
  const trailerAt = text.lastIndexOf('trailer');
  const trailer = trailerAt === -1 ? null : /<<([\s\S]*?)>>\s*startxref\s+(\d+)/.exec(text.slice(trailerAt));
  const info = trailer && /\/Info\s+(\d+)\s+(\d+)\s+R/.exec(trailer[1] as string);
  const root = trailer && /\/Root\s+(\d+)\s+(\d+)\s+R/.exec(trailer[1] as string);
  const size = trailer && /\/Size\s+(\d+)/.exec(trailer[1] as string);
  if (!trailer || !info || !root || !size) return pdf;
  const objAt = text.lastIndexOf(`\n${info[1]} ${info[2]} obj`);
  const objEnd = text.indexOf('endobj', objAt);
  if (objAt === -1 || objEnd === -1) return pdf;
  const old = dictEntries(text.slice(text.indexOf('<<', objAt) + 2, objEnd));
  const entries = KEPT.flatMap((k) => (old.has(k) ? [`/${k} ${old.get(k)}`] : []));
  if (author !== null) entries.push(`/Author ${pdfTextString(author)}`, `/Creator ${pdfTextString(author)}`);
  const id = Number(info[1]);
  const object = `${id} 0 obj\n<<${entries.join('\n')}>>\nendobj\n`;
  const objectAt = pdf.length + 1;
  const xrefAt = objectAt + object.length;
  const update =
    `\n${object}xref\n${id} 1\n${String(objectAt).padStart(10, '0')} 00000 n \n` +
    `trailer\n<</Size ${size[1]}\n/Root ${root[1]} ${root[2]} R\n/Info ${id} 0 R\n/Prev ${trailer[2]}>>\n` +
    `startxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([pdf, Buffer.from(update, 'latin1')]);
}
