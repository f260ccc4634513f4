// The block at the top of every report (src/report/render/html.ts): the executive summary in the report's
// language, then the account manager's notes when there are any.
import { raw } from 'hono/html';
import { translator } from '../i18n/translate.js';
import type { ReportModel } from '../model/report-shape.js';
import { formattersOf } from '../render/format.js';
import { type Html, html } from '../render/html-parts.js';
import type { ReportStyle } from '../style.js';
import { notesHtml } from './notes.js';
import { summaryHtml } from './render.js';
import { summarySentences } from './sentences.js';

/** `notes`: the Markdown of ./notes.ts readNotes, or null for none. */
export function summarySection(r: ReportModel, style: ReportStyle, notes: string | null): Html {
  const { t } = translator(style.locale);
  const words = { t, f: formattersOf(style), locale: style.locale };
  return html`<section class="summary"><h2>${t('summary:title')}</h2>
${summaryHtml(summarySentences(r), words)}
${
  notes === null
    ? ''
    : html`<div class="notes"><h3>${t('summary:notes_title')}</h3>
${raw(notesHtml(notes))}</div>`
}
</section>`;
}
