// An incremental update of a PDF Chromium printed (PDF 1.7 section 7.5.6): new versions of some
// objects appended after its bytes, with an xref section naming them and a trailer pointing at the
// previous one, so everything Chromium wrote (its tags, outline and links) stays as it was. Chromium
// (Skia) writes a classic trailer and plain objects; a file that is not like that is left alone by
// the callers (./pdf-info.ts, ./pdf-links.ts). Pure.

/** The last trailer's entries: object numbers of the catalog and the info, the size, the last xref. */
export interface PdfTrailer {
  /** `/Root` as written (`1 0`). */
  root: string;
  /** `/Info` as written (`12 0`), or null. */
  info: string | null;
  size: string;
  /** Where the last xref section starts. */
  startxref: string;
}

/** The last trailer of a PDF read as latin1 text; null when it is not the classic one. */
export function lastTrailer(text: string): PdfTrailer | null {
  const at = text.lastIndexOf('trailer');
  const trailer = at === -1 ? null : /<<([\s\S]*?)>>\s*startxref\s+(\d+)/.exec(text.slice(at));
  if (!trailer) return null;
  const dict = trailer[1] as string;
  const root = /\/Root\s+(\d+\s+\d+)\s+R/.exec(dict);
  const info = /\/Info\s+(\d+\s+\d+)\s+R/.exec(dict);
  const size = /\/Size\s+(\d+)/.exec(dict);
  if (!root || !size) return null;
  return {
    root: root[1] as string,
    info: info?.[1] ?? null,
    size: size[1] as string,
    startxref: trailer[2] as string,
  };
}

/** The end of a literal string starting at `start` (its `(`): nested parentheses and escapes. */
export function literalEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

/** One object's new version: its number, generation and what goes between `obj` and `endobj`. */
export interface PdfObject {
  id: number;
  generation: number;
  body: string;
}

/**
 * The PDF with `objects` appended as an update; `info` replaces the trailer's /Info (an object
 * number), else it is kept.
 */
export function appendUpdate(
  pdf: Buffer,
  trailer: PdfTrailer,
  objects: readonly PdfObject[],
  info: string | null = trailer.info,
): Buffer {
  let at = pdf.length + 1;
  let written = '';
  let xref = 'xref\n';
  for (const o of objects) {
    const object = `${o.id} ${o.generation} obj\n${o.body}\nendobj\n`;
    xref += `${o.id} 1\n${String(at).padStart(10, '0')} ${String(o.generation).padStart(5, '0')} n \n`;
    written += object;
    at += object.length;
  }
  const update =
    `\n${written}${xref}` +
    `trailer\n<</Size ${trailer.size}\n/Root ${trailer.root} R${info === null ? '' : `\n/Info ${info} R`}\n/Prev ${trailer.startxref}>>\n` +
    `startxref\n${at}\n%%EOF\n`;
  return Buffer.concat([pdf, Buffer.from(update, 'latin1')]);
}
