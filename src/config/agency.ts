// `reports.agency` (docs/configuration.md, docs/reports.md "The whole book"): the agency's name as a
// string, as every release has read it, or at the top level a mapping that also turns on the
// whole-book overview across all accounts, in the agency's own locale. A mapping at an account or a
// workspace is refused with one line naming the key: the book is one page for all accounts.
// The parts (name, locale, time zone) are schema.ts's own, passed in, so this module imports
// nothing of it and no cycle forms.
import { z } from 'zod';

/** The whole-book overview's settings (the top-level `reports.agency` mapping). */
export interface AgencyBook {
  name: string;
  /** The book's locale; unset: the top-level `reports.locale`. */
  locale?: string | undefined;
  timeZone?: string | undefined;
}

const BOOK_KEYS = 'name, locale and timeZone';
const NOT_HERE =
  'expected the agency name (a string): a mapping (the whole-book overview across all accounts) belongs in the top-level reports block only';

interface Parts {
  name: z.ZodType<string>;
  locale: z.ZodType<string>;
  timeZone: z.ZodType<string>;
}

/**
 * `top`: the string, or the mapping `{ name, locale?, timeZone? }`; `level`: an account's or a
 * workspace's, a string only. Not a z.union: a union's error would hide which key is wrong.
 */
export function agencySchemas(p: Parts) {
  const book = z.strictObject(
    { name: p.name, locale: p.locale.optional(), timeZone: p.timeZone.optional() },
    { error: `expected the agency name, or a mapping with ${BOOK_KEYS}` },
  );
  const top = z.unknown().transform((v, ctx): string | AgencyBook => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const r = book.safeParse(v);
      if (r.success) return r.data;
      for (const i of r.error.issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message });
      return z.NEVER;
    }
    const r = p.name.safeParse(v);
    if (r.success) return r.data;
    for (const i of r.error.issues)
      ctx.addIssue({
        code: 'custom',
        path: i.path,
        message: `${i.message}, or a mapping with ${BOOK_KEYS} (the whole-book overview)`,
      });
    return z.NEVER;
  });
  const level = z.unknown().transform((v, ctx): string => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      ctx.addIssue({ code: 'custom', message: NOT_HERE });
      return z.NEVER;
    }
    const r = p.name.safeParse(v);
    if (r.success) return r.data;
    for (const i of r.error.issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message });
    return z.NEVER;
  });
  return { top, level };
}

/** The agency's name, whichever form `reports.agency` takes; undefined when unset. */
export function agencyName(agency: string | AgencyBook | undefined): string | undefined {
  return typeof agency === 'object' ? agency.name : agency;
}

/** The whole-book settings when `reports.agency` is a mapping; else null (no whole-book overview). */
export function agencyBook(agency: string | AgencyBook | undefined): AgencyBook | null {
  return typeof agency === 'object' ? agency : null;
}
