// `reports.mail.templates` and `reports.mail.link` (docs/reports.md, "Your own wording" and "A link
// to the report"): an agency's subject and Markdown body per locale with placeholders from a fixed
// list, and the lifetime of the report's link in the mail. Checked here, at load: an unknown
// placeholder or a stray brace names the key (exit 78). The wording itself is written by
// src/delivery/mail/template.ts.
import { z } from 'zod';

/** Every placeholder a body may use; the subject takes the one-line ones only. */
export const BODY_PLACEHOLDERS = [
  'client',
  'period',
  'headline',
  'score',
  'change',
  'summary',
  'note',
  'link',
  'expires',
  'file',
  'agency',
  'contact',
] as const;
export const SUBJECT_PLACEHOLDERS = ['client', 'period', 'headline', 'agency', 'expires'] as const;
export type Placeholder = (typeof BODY_PLACEHOLDERS)[number];

export type TemplatePart = { text: string } | { name: Placeholder };

const NAME = /^[a-z]+$/;

/**
 * The template as text and placeholders, or the reason it is not one: `{name}` from `allowed`,
 * `{{` and `}}` a literal brace. The reason names the placeholder or the brace's place.
 */
export function parseTemplate(
  source: string,
  allowed: readonly string[],
): { parts: TemplatePart[] } | { error: string } {
  const parts: TemplatePart[] = [];
  let text = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if ((c === '{' || c === '}') && source[i + 1] === c) {
      text += c;
      i++;
    } else if (c === '{') {
      const end = source.indexOf('}', i);
      const name = end < 0 ? '' : source.slice(i + 1, end);
      if (end < 0 || !NAME.test(name))
        return {
          error: `a lone { at character ${i + 1}: a placeholder is {name} (such as {client}); write {{ for a brace`,
        };
      if (!allowed.includes(name))
        return {
          error: `unknown placeholder {${name}}: use ${allowed.map((p) => `{${p}}`).join(', ')}`,
        };
      if (text) parts.push({ text });
      text = '';
      parts.push({ name: name as Placeholder });
      i = end;
    } else if (c === '}') {
      return { error: `a lone } at character ${i + 1}: write }} for a brace` };
    } else text += c;
  }
  if (text) parts.push({ text });
  return { parts };
}

function template(what: string, allowed: readonly string[], max: number) {
  return z
    .string({ error: `expected ${what} (text with placeholders such as {client})` })
    .min(1, { error: `expected ${what}` })
    .max(max, { error: `expected at most ${max} characters` })
    .superRefine((s, ctx) => {
      const p = parseTemplate(s, allowed);
      if ('error' in p) ctx.addIssue({ code: 'custom', message: p.error });
    });
}

const MailTemplateSchema = z.strictObject(
  {
    /** One line; a line break in it is refused (a header is one line). */
    subject: template('a subject', SUBJECT_PLACEHOLDERS, 300)
      .refine((s) => !/[\r\n]/.test(s), { error: 'expected a subject on one line' })
      .optional(),
    /** Markdown: the HTML part renders it, the text part is it as written. */
    body: template('a Markdown body', BODY_PLACEHOLDERS, 20_000).optional(),
  },
  { error: 'expected a mapping with subject and/or body' },
);

/** `default`, or a locale (`de`, `de-CH`): a workspace's locale picks its own, then its language's, then `default`. */
export const MailTemplatesSchema = z.record(
  z.string().refine(
    (k) => {
      if (k === 'default') return true;
      try {
        return Intl.getCanonicalLocales(k).length === 1;
      } catch {
        return false;
      }
    },
    { error: 'expected default or a locale such as de or de-CH' },
  ),
  MailTemplateSchema,
  {
    error: (iss) =>
      iss.code === 'invalid_key'
        ? 'expected default or a locale such as de or de-CH'
        : 'expected a mapping of locales (or default) to { subject, body }',
  },
);

/** S3's presigned URLs (Signature Version 4) are valid for at most 7 days. */
export const LINK_MAX_SECONDS = 7 * 24 * 3600;

const UNITS: Record<string, number> = { m: 60, h: 3600, d: 86400 };

/** `90m`, `12h`, `7d` as seconds; undefined when it is not one. */
export function linkSeconds(s: string): number | undefined {
  const m = /^(\d{1,6})([mhd])$/.exec(s.trim());
  return m ? Number(m[1]) * (UNITS[m[2] as string] as number) : undefined;
}

export const linkLifetime = z
  .string({ error: 'expected a lifetime such as 7d, 48h or 90m' })
  .superRefine((s, ctx) => {
    const seconds = linkSeconds(s);
    if (seconds === undefined || seconds <= 0)
      ctx.addIssue({ code: 'custom', message: 'expected a lifetime such as 7d, 48h or 90m' });
    else if (seconds > LINK_MAX_SECONDS)
      ctx.addIssue({
        code: 'custom',
        message: 'expected at most 7d: an S3 presigned URL (Signature Version 4) is valid for 7 days at most',
      });
  });

/** The report's link in the mail (needs an S3 store): how long it opens the report. */
export const MailLinkSchema = z.strictObject(
  { expires: linkLifetime },
  { error: 'expected a mapping with expires, such as { expires: 7d }' },
);

export type MailTemplates = z.output<typeof MailTemplatesSchema>;
