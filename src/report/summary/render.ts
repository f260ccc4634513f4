// The executive summary as HTML: each sentence (./sentences.ts) looked up in the `summary` catalogue
// area of the report's language, its figures formatted in the report's locale (src/report/render/format.ts)
// and its names from the API escaped and wrapped in <bdi>. The catalogue sees placeholders only (a
// private-use token per parameter), so its text is escaped here, once, whatever the translator wrote.

import { goalParamHtml } from '../goals/words.js';
import type { MessageKey, Translate } from '../i18n/translate.js';
import { type Formatters, oneDecimal } from '../render/format.js';
import { type Html, html, signed, text } from '../render/html-parts.js';
import type { Param, Sentence } from './sentences.js';

export interface SummaryWords {
  t: Translate;
  f: Formatters;
  /** The locale lists are joined in (`ChatGPT, Gemini and Claude`); null: English. */
  locale: string | null;
}

const TOKEN = /\uE000(\d+)\uE001/g;

function param(p: Param, w: SummaryWords): Html {
  const name = w.f.engine;
  switch (p.kind) {
    case 'score':
      return html`${w.f.one(p.value)}`;
    case 'delta':
      return html`${signed(w.f, oneDecimal(p.value))}`;
    case 'count':
      return html`${w.f.number(p.value)}`;
    case 'engine':
      return html`<bdi>${name(p.value)}</bdi>`;
    case 'engines':
      return html`<bdi>${new Intl.ListFormat(w.locale ?? 'en', { type: 'conjunction' }).format(p.value.map(name))}</bdi>`;
    case 'text':
      return text(w.f, p.value);
    case 'goal':
      return goalParamHtml(p, w.f);
    case 'period':
      return html`${w.f.period(p.value)}`;
    case 'day':
      return html`${w.f.longDay(p.value)}`;
  }
}

/** One sentence: the catalogue's words escaped, each token replaced by its formatted figure or name. */
export function sentenceHtml(s: Sentence, w: SummaryWords): Html {
  const names = Object.keys(s.params);
  const tokens = Object.fromEntries(names.map((n, i) => [n, `\uE000${i}\uE001`]));
  // A goal's sentence names its own area (../goals/sentences.ts); the others are the summary's.
  const key: MessageKey = s.key.startsWith('goals:') ? (s.key as MessageKey) : `summary:${s.key}`;
  const words = w.t(key, { ...tokens, ...(s.count === undefined ? {} : { count: s.count }) });
  const parts: Html[] = [];
  let last = 0;
  for (const m of words.matchAll(TOKEN)) {
    parts.push(html`${words.slice(last, m.index)}`);
    const p = s.params[names[Number(m[1])] as string];
    if (p) parts.push(param(p, w));
    last = m.index + m[0].length;
  }
  parts.push(html`${words.slice(last)}`);
  return html`${parts}`;
}

/** The summary paragraph: its sentences in order, one space apart. */
export function summaryHtml(sentences: readonly Sentence[], w: SummaryWords): Html {
  return html`<p class="summary">${sentences.map((s, i) => html`${i ? ' ' : ''}${sentenceHtml(s, w)}`)}</p>`;
}
