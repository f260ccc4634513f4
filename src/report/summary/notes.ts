// The account manager's own words under the summary: one Markdown file per workspace and period,
// `<reports.notesDir>/<account>/<brand_key>/<period>.md` (docs/reports.md, "Account manager's
// notes"): brand_key is the workspace id as the store's folders write it (src/sinks/layout.ts), the
// period its name in the store (`2026-11`, `2026-W47`, `2026-11-01_2026-11-28`). Rendered with raw
// HTML off and no autolinks, so `<script>` reads as text; a missing file is no section, no error.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { brandKey } from '../../sinks/layout.js';

/** Where a workspace's notes of a period are read from. */
export function notesPath(dir: string, account: string, brandId: string, period: string): string {
  return join(dir, account, brandKey(brandId), `${period}.md`);
}

/**
 * The notes' Markdown, or null when there is no notes folder or no file for this workspace and period.
 * A file that exists but cannot be read is an error naming it: the manager's words are never dropped
 * without a word.
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
    const text = await readFile(path, 'utf8');
    return text.trim() === '' ? null : text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`the account manager's notes ${path} cannot be read: ${(err as Error).message}`);
  }
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
