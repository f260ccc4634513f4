// What a report's mail says of the report beyond its two figures: the summary's sentences as the
// page words them (src/report/summary/render.ts), the account manager's note (Markdown, rendered as
// the page renders it: src/report/summary/notes.ts) and the link to the report with its expiry, each
// as plain text and as escaped HTML (./template.ts Value). Pure.

import { formattersOf } from '../../report/render/format.js';
import { escapeText } from '../../report/render/pdf.js';
import { notesHtml } from '../../report/summary/notes.js';
import { sentenceHtml } from '../../report/summary/render.js';
import type { Sentence } from '../../report/summary/sentences.js';
import type { Value } from './template.js';

interface Wording {
  locale: string | null;
  timeZone?: string | null | undefined;
  engineNames?: Readonly<Record<string, string>> | undefined;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" };

/** Escaped HTML without its tags, unescaped: the text a reader sees. */
function htmlToText(s: string): string {
  return s
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_m, e: string) => ENTITIES[e] ?? '');
}

/** The summary's sentences, one space apart, as the page says them. */
export function summaryValue(sentences: readonly Sentence[], w: Wording): Value {
  const f = formattersOf({
    locale: w.locale,
    timeZone: w.timeZone ?? null,
    engineNames: w.engineNames ?? {},
  });
  const inline = sentences
    .map((s) => {
      const h = sentenceHtml(s, { t: f.t, f, locale: w.locale });
      // Every part is synchronous (no async child): a string.
      if (h instanceof Promise) throw new Error('a summary sentence rendered asynchronously');
      return String(h);
    })
    .join(' ');
  return { text: htmlToText(inline), inline, block: `<p>${inline}</p>` };
}

/** The note: its Markdown as written in the text part, rendered as on the page in the HTML part. */
export function noteValue(markdown: string): Value {
  const text = markdown.trim();
  return { text, inline: escapeText(text), block: `<div class="note">${notesHtml(text)}</div>` };
}

/** The link: the URL in the text part, a link in the HTML part. */
export function linkValue(url: string): Value {
  const safe = escapeText(url);
  return { text: url, inline: `<a href="${safe}">${safe}</a>`, href: url };
}

/** When the link stops working, in the locale and the workspace's time zone (UTC without one). */
export function expiryWords(expires: Date, w: Wording): string {
  return new Intl.DateTimeFormat(w.locale ?? 'en-US', {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: w.timeZone ?? 'UTC',
    timeZoneName: 'short',
  }).format(expires);
}
