// The account manager's own words under the summary: one Markdown file per workspace and period,
// `<reports.notesDir>/<account>/<brand_key>/<period>.md` (docs/reports.md, "Account manager's
// notes"): brand_key is the workspace id as the store's folders write it (src/sinks/layout.ts), the
// period its name in the store (`2026-11`, `2026-W47`, `2026-11-01_2026-11-28`). Rendered with raw
// HTML off and no autolinks, so `<script>` reads as text; a missing file is no section, no error.
import { constants, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { brandKey } from '../../sinks/layout.js';

/** Where a workspace's notes of a period are read from. */
export function notesPath(dir: string, account: string, brandId: string, period: string): string {
  return join(dir, account, brandKey(brandId), `${period}.md`);
}

/**
 * The largest note read (64 KiB: pages of words, far more than a summary holds). A larger file
 * fails its report, saying so: a 100 MB note made a 105 MB page and 1.16 GB of memory.
 */
export const NOTES_MAX_BYTES = 64 * 1024;

/** A note that exists but is not read: the report it belongs to is not made, this says why. */
export class NotesError extends Error {
  constructor(path: string, why: string) {
    super(
      `the account manager's notes ${path} ${why}; notes are read only from a regular file of at most ${NOTES_MAX_BYTES / 1024} KiB inside reports.notesDir`,
    );
    this.name = 'NotesError';
  }
}

/**
 * The notes' Markdown, or null when there is no notes folder or no file for this workspace and period.
 * Only a regular file inside `dir` is read: not through a link (to /proc/self/environ, the config,
 * another account's folder: its words would reach the client), not a device, a pipe (which would
 * hold the report forever) or a folder, and at most NOTES_MAX_BYTES. A file that exists and is not
 * read is a NotesError naming it: the manager's words are never dropped without a word. `dir`
 * itself may be a link: the operator named it.
 */
export async function readNotes(
  dir: string | null,
  account: string,
  brandId: string,
  period: string,
): Promise<string | null> {
  if (dir === null) return null;
  const path = notesPath(dir, account, brandId, period);
  try {
    // The folders between `dir` and the file: real folders (the file's own open refuses a link).
    let at = dir;
    for (const part of [account, brandKey(brandId)]) {
      at = join(at, part);
      const s = await lstat(at);
      if (s.isSymbolicLink())
        throw new NotesError(path, `is not read: a folder on its path is a link (${at})`);
      if (!s.isDirectory()) throw new NotesError(path, `is not read: ${at} is not a folder`);
    }
    const text = await readRegularFile(path);
    return text.trim() === '' ? null : text;
  } catch (err) {
    if (err instanceof NotesError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new NotesError(path, 'is a link');
    throw new NotesError(path, `cannot be read: ${(err as Error).message}`);
  }
}

/** The file's text: opened without following a link nor waiting on a pipe, checked, read bounded. */
async function readRegularFile(path: string): Promise<string> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const s = await file.stat();
    if (!s.isFile()) throw new NotesError(path, `is not a regular file (${kindOf(s)})`);
    const tooLarge = () => new NotesError(path, `is larger than ${NOTES_MAX_BYTES / 1024} KiB`);
    if (s.size > NOTES_MAX_BYTES) throw tooLarge();
    // One byte more than the cap: a file that grew since its stat is caught too.
    const buffer = Buffer.alloc(NOTES_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > NOTES_MAX_BYTES) throw tooLarge();
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await file.close();
  }
}

function kindOf(s: Stats): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a named pipe';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  return 'not a file';
}

// html: false escapes raw HTML; linkify: false keeps bare addresses text; markdown-it's own link
// check refuses javascript:, vbscript:, file: and data: links.
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

// An image is shown as its alt text, never fetched (the page fetches nothing: an image would be a
// request, or a hole under the page's Content-Security-Policy). With the image rule off instead,
// `![chart](url)` would read "!" and a live link to the picture.
md.renderer.rules.image = (tokens, i, options, env, self) => {
  const alt = self.renderInlineAsText(tokens[i]?.children ?? [], options, env);
  return alt === '' ? '' : `<span class="note-image">${md.utils.escapeHtml(alt)}</span>`;
};

// The notes sit under the summary's own heading: their headings start at <h4>, so they never
// join the page's sections (<h2>) or the PDF's outline as one of them.
md.renderer.rules.heading_open = (tokens, i) => {
  const level = Math.min(6, Number((tokens[i]?.tag ?? 'h1').slice(1)) + 3);
  return `<h${level}>`;
};
md.renderer.rules.heading_close = (tokens, i) => {
  const level = Math.min(6, Number((tokens[i]?.tag ?? 'h1').slice(1)) + 3);
  return `</h${level}>\n`;
};

/** The notes as HTML (escaped by markdown-it). */
export function notesHtml(markdown: string): string {
  return md.render(markdown);
}
