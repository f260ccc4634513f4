// An agency's own mail wording (`reports.mail.templates`, docs/reports.md "Your own wording"): a
// subject and a Markdown body with named placeholders from a fixed list. Parsed at load (an unknown
// placeholder or a stray brace is a config error naming the key) and again when a mail is written.
// Each value is escaped for where it lands: the subject is one header-safe line, the HTML body is
// the Markdown rendered with raw HTML off and the values put in after rendering (so a value is never
// read as Markdown or HTML), the text body is the template with the values as plain text. A
// placeholder without a value (no note this period, no link) drops its line. Pure.
import MarkdownIt from 'markdown-it';
import {
  BODY_PLACEHOLDERS,
  type Placeholder,
  parseTemplate,
  SUBJECT_PLACEHOLDERS,
  type TemplatePart,
} from '../../config/mail-templates.js';
import { escapeText } from '../../report/render/pdf.js';

/** One value in each medium; empty text: the placeholder has no value (its line drops). */
export interface Value {
  text: string;
  /** Escaped HTML that sits inside a paragraph. */
  inline: string;
  /** Escaped HTML that replaces a paragraph holding only this placeholder (a note's own blocks). */
  block?: string;
  /** A URL, for a Markdown link's target: only {link} has one. */
  href?: string;
}

export type Values = Partial<Record<Placeholder, Value>>;

/** Plain text as a value: escaped for HTML. */
export const textValue = (text: string): Value => ({ text, inline: escapeText(text) });

const has = (v: Values, name: Placeholder) => (v[name]?.text ?? '') !== '';

function parsed(source: string, allowed: readonly string[]): TemplatePart[] {
  const p = parseTemplate(source, allowed);
  // Checked at load (src/config/mail-templates.ts): a template here is always one.
  if ('error' in p) throw new Error(p.error);
  return p.parts;
}

/**
 * The subject: one line, the values' line breaks and control characters made spaces, runs of
 * spaces one, and a separator left hanging at either end by a missing value trimmed.
 */
export function renderSubject(source: string, values: Values): string {
  const line = parsed(source, SUBJECT_PLACEHOLDERS)
    .map((p) => ('text' in p ? p.text : (values[p.name]?.text ?? '')))
    .join('');
  return line
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s\-–—:|,;]+|[\s\-–—:|,;(]+$/g, '')
    .replace(/\(\s*\)/g, '')
    .trim();
}

/** The template's lines, those holding a placeholder without a value dropped. */
function keptLines(source: string, values: Values): TemplatePart[][] {
  return source
    .split(/\r?\n/)
    .map((line) => parsed(line, BODY_PLACEHOLDERS))
    .filter((parts) => parts.every((p) => 'text' in p || has(values, p.name)));
}

/** The text body: the template's Markdown as written, each value as plain text. */
export function renderBodyText(source: string, values: Values): string {
  const lines = keptLines(source, values).map((parts) =>
    parts.map((p) => ('text' in p ? p.text : (values[p.name]?.text ?? ''))).join(''),
  );
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

// Raw HTML off (`<script>` in a template reads as text), no autolinks; markdown-it's link check
// refuses javascript:, vbscript:, file: and data: targets.
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

// A value's place in the Markdown: letters and digits only, so Markdown, link targets and escaping
// leave it as written; replaced after rendering. A template that spells it out is not a template
// anyone writes.
const mark = (i: number) => `VISYNCVALUE${i}X`;
const MARK = /VISYNCVALUE(\d+)X/g;

/** The HTML body's inner part: the template's Markdown rendered, then each value put in escaped. */
export function renderBodyHtml(source: string, values: Values): string {
  const names: Placeholder[] = [];
  const markdown = keptLines(source, values)
    .map((parts) =>
      parts
        .map((p) => {
          if ('text' in p) return p.text;
          names.push(p.name);
          return mark(names.length - 1);
        })
        .join(''),
    )
    .join('\n');
  const rendered = md.render(markdown);
  const valueAt = (i: string) => values[names[Number(i)] as Placeholder];
  return (
    rendered
      // A paragraph that is only a block value (the note's own paragraphs and lists): the value's blocks.
      .replace(/<p>VISYNCVALUE(\d+)X<\/p>\n?/g, (all, i: string) => {
        const v = valueAt(i);
        return v?.block !== undefined ? `${v.block}\n` : all;
      })
      // A link's target: only {link} is a URL; any other value there leaves the link without one.
      .replace(/href="([^"]*)"/g, (_all, target: string) => {
        const only = /^VISYNCVALUE(\d+)X$/.exec(target);
        const v = only ? valueAt(only[1] as string) : undefined;
        return `href="${v?.href !== undefined ? escapeText(v.href) : target.includes('VISYNCVALUE') ? '' : target}"`;
      })
      .replace(MARK, (_all, i: string) => valueAt(i)?.inline ?? '')
  );
}
