// The report page's lists that are not figures (./html.ts): "what changed" with each line's news,
// the notes on data sent in a shape this version does not read, and the API's enum words
// (priority, status) in the locale; every other string from the API keeps its words.
import type { ChangeLine, Direction } from '../model/change-lines.js';
import type { NotAvailable } from '../model/not-read.js';
import type { Unrecognised } from '../model/unrecognised.js';
import { type Formatters, shownDelta } from './format.js';
import { fig, type Html, html, signedWithUnit, table, text } from './html-parts.js';

const ENUMS = { priority: ['high', 'medium', 'low'], status: ['done', 'dismissed', 'open'] } as const;

/** A priority or status the API sends as a known word, in the locale; any other value as sent. */
export function enumWord(f: Formatters, kind: keyof typeof ENUMS, v: string | null): Html {
  return v !== null && (ENUMS[kind] as readonly string[]).includes(v)
    ? html`${f.t(`page:${kind}.${v}`)}`
    : text(f, v);
}

export function unrecognised(f: Formatters, list: readonly Unrecognised[]): Html {
  if (list.length === 0) return html``;
  return html`<div class="drift"><p><strong>${f.t('page:drift.shape')}</strong> ${f.t('page:drift.shape_text')}</p>
${table(
  f,
  ['table', 'field', 'example'],
  list.map((u) => [html`${u.table}`, text(f, u.field), text(f, u.example)]),
)}</div>`;
}

/** What a section could not read: the reason, and the data as it was sent (escaped). */
export function notRead(f: Formatters, what: string, n: NotAvailable | null): Html {
  if (n === null) return html``;
  return html`<div class="drift"><p><strong>${f.t('page:drift.not_read', { what })}</strong> ${f.t('page:drift.not_read_text', { endpoint: n.endpoint, reason: n.reason })}</p>
<pre class="as-sent">${n.data}</pre></div>`;
}

/** Good or bad news, as a sign and the fixed delta colour. */
const NEWS: Record<Direction, { sign: string; css: string }> = {
  better: { sign: '+', css: 'up' },
  worse: { sign: '\u2212', css: 'down' },
  neutral: { sign: '\u00b7', css: 'flat' },
};

/** The line's note in words: a closed recommendation's status, a claim's engine. */
function noteOf(f: Formatters, l: ChangeLine): string | null {
  if (l.note === null) return null;
  if (l.change === 'recommendation_closed')
    return (ENUMS.status as readonly string[]).includes(l.note) ? f.t(`page:status.${l.note}`) : l.note;
  if (l.change === 'flag_new' || l.change === 'flag_cleared') return f.engine(l.note);
  return null;
}

/**
 * A line's subject as a client reads it: an engine by its name, a record by its words, never by its
 * API id (a record the API sent without words reads as missing).
 */
function subject(f: Formatters, l: ChangeLine): Html {
  if (l.change === 'engine_moved')
    return html`<bdi>${f.engine(l.what)}</bdi>: ${fig(f, l.before)} \u2192 ${fig(f, l.after)} (${l.delta === null ? f.na : signedWithUnit(f, shownDelta(l.after, l.before) ?? l.delta, 'pts')})`;
  return text(f, l.id !== null && l.what === l.id ? null : l.what);
}

/** The "what changed" lines, one per recommendation title (src/report/model/change-lines.ts). */
export function changeTable(f: Formatters, lines: readonly ChangeLine[]): Html {
  return html`<div class="changes">${table(
    f,
    ['news', 'change', 'what'],
    lines.map((l) => {
      const n = NEWS[l.direction];
      const kind = f.t(`page:change.${l.change}`);
      const note = noteOf(f, l);
      const label = note === null ? kind : f.t('page:change.noted', { label: kind, note });
      const what = subject(f, l);
      return [
        html`<span class="delta ${n.css}">${n.sign} ${f.t(`page:news.${l.direction}`)}</span>`,
        html`${label}`,
        what,
      ];
    }),
  )}</div>`;
}
