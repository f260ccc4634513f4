// The words of a report in the client's language (docs/reports.md, "Language"). One i18next
// instance per locale, built once from the static catalogues (./catalogues/index.ts) and cached.
// i18next picks plural forms with Intl.PluralRules (keys `x_one`, `x_other`, `x_many` ...) and falls
// back to English for a language without a catalogue. A configured locale without one never gets
// here: the settings leave it unset (reportLocale, src/report/settings.ts), so its report is English
// in its dates and numbers too (src/report/render/format.ts). Interpolated values are not escaped here: the page escapes at the HTML
// layer (src/report/render/html-parts.ts), the PDF footer and the e-mail escape for their own medium.
import i18next, { type i18n } from 'i18next';
import { AREAS, type Area, CATALOGUES, LANGUAGES, type Language } from './catalogues/index.js';

/** `area:key`, e.g. `page:section.kpis` or `pdf:footer.page`. */
export type MessageKey = `${Area}:${string}`;

export type Translate = (key: MessageKey, params?: Record<string, unknown>) => string;

export interface Translator {
  /** The catalogue the words come from: the locale's language, or `en` when it has none. */
  lang: Language;
  /** For `<html lang>` and the PDF: the locale itself when its language has a catalogue, else `en`. */
  htmlLang: string;
  /** False when a locale is set whose language has no catalogue (words stay English; `doctor` says so). */
  hasCatalogue: boolean;
  t: Translate;
}

/** The catalogue language of a BCP 47 locale (`de-AT` -> `de`); null when there is none. */
export function catalogueLanguage(locale: string): Language | null {
  let language: string;
  try {
    language = new Intl.Locale(locale).language;
  } catch {
    return null;
  }
  return (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : null;
}

/**
 * The locale a report is written in: `locale` when its language has a catalogue, else none (the
 * English page: its words, and its dates and numbers too, so English words never stand among
 * another language's dates; `visync doctor` says so).
 */
export function reportLocale(locale: string | undefined): string | undefined {
  return locale === undefined || catalogueLanguage(locale) === null ? undefined : locale;
}

function instance(lang: Language): i18n {
  const t = i18next.createInstance();
  // initAsync false: the resources are in memory, so init finishes before it returns.
  void t.init({
    lng: lang,
    fallbackLng: 'en',
    ns: [...AREAS],
    defaultNS: 'page',
    resources: Object.fromEntries(LANGUAGES.map((l) => [l, CATALOGUES[l]])),
    initAsync: false,
    keySeparator: false,
    nsSeparator: ':',
    returnNull: false,
    returnEmptyString: false,
    interpolation: { escapeValue: false },
  });
  return t;
}

const cache = new Map<string, Translator>();

/**
 * The words for a locale (null: no locale set, English). A key no catalogue has, not even English,
 * is a mistake in the code: it throws rather than print the key to a client.
 */
export function translator(locale: string | null): Translator {
  const id = locale ?? '';
  const hit = cache.get(id);
  if (hit) return hit;
  const found = locale === null ? 'en' : catalogueLanguage(locale);
  const lang = found ?? 'en';
  const i = instance(lang);
  const t: Translate = (key, params) => {
    // With `count`, i18next looks for the plural forms (`days_one` ...), not the bare key.
    if (!i.exists(key, params as Parameters<i18n['exists']>[1]))
      throw new Error(`report message ${key} is in no catalogue`);
    // The key is checked above; i18next's typed overloads want literal keys, ours are built.
    return (i.t as unknown as (k: string, o: Record<string, unknown>) => string)(key, params ?? {});
  };
  const made: Translator = {
    lang,
    htmlLang: locale !== null && found !== null ? new Intl.Locale(locale).toString() : 'en',
    hasCatalogue: locale === null || found !== null,
    t,
  };
  cache.set(id, made);
  return made;
}
