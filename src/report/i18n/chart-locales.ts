// Number and time format definitions for the charts' axes, in the shape Vega's own locale support
// takes (View option `locale`, docs/reports.md "Language"): d3-format's and d3-time-format's locale
// files, imported statically so the bundle carries them. A locale without an exact file takes its
// language's (de-AT -> de-DE); one whose language has none keeps Vega's default (en-US).

import numberDeCH from 'd3-format/locale/de-CH' with { type: 'json' };
import numberDeDE from 'd3-format/locale/de-DE' with { type: 'json' };
import numberEnGB from 'd3-format/locale/en-GB' with { type: 'json' };
import numberEnUS from 'd3-format/locale/en-US' with { type: 'json' };
import numberEsES from 'd3-format/locale/es-ES' with { type: 'json' };
import numberEsMX from 'd3-format/locale/es-MX' with { type: 'json' };
import numberFrCA from 'd3-format/locale/fr-CA' with { type: 'json' };
import numberFrFR from 'd3-format/locale/fr-FR' with { type: 'json' };
import numberItIT from 'd3-format/locale/it-IT' with { type: 'json' };
import numberNlNL from 'd3-format/locale/nl-NL' with { type: 'json' };
import numberPtBR from 'd3-format/locale/pt-BR' with { type: 'json' };
import numberPtPT from 'd3-format/locale/pt-PT' with { type: 'json' };
import timeDeCH from 'd3-time-format/locale/de-CH' with { type: 'json' };
import timeDeDE from 'd3-time-format/locale/de-DE' with { type: 'json' };
import timeEnGB from 'd3-time-format/locale/en-GB' with { type: 'json' };
import timeEnUS from 'd3-time-format/locale/en-US' with { type: 'json' };
import timeEsES from 'd3-time-format/locale/es-ES' with { type: 'json' };
import timeEsMX from 'd3-time-format/locale/es-MX' with { type: 'json' };
import timeFrCA from 'd3-time-format/locale/fr-CA' with { type: 'json' };
import timeFrFR from 'd3-time-format/locale/fr-FR' with { type: 'json' };
import timeItIT from 'd3-time-format/locale/it-IT' with { type: 'json' };
import timeNlNL from 'd3-time-format/locale/nl-NL' with { type: 'json' };
import timePtBR from 'd3-time-format/locale/pt-BR' with { type: 'json' };

export interface ChartLocale {
  number: object;
  time: object;
}

const LOCALES: Readonly<Record<string, ChartLocale>> = {
  'en-US': { number: numberEnUS, time: timeEnUS },
  'en-GB': { number: numberEnGB, time: timeEnGB },
  'de-DE': { number: numberDeDE, time: timeDeDE },
  'de-CH': { number: numberDeCH, time: timeDeCH },
  'fr-FR': { number: numberFrFR, time: timeFrFR },
  'fr-CA': { number: numberFrCA, time: timeFrCA },
  'es-ES': { number: numberEsES, time: timeEsES },
  'es-MX': { number: numberEsMX, time: timeEsMX },
  'it-IT': { number: numberItIT, time: timeItIT },
  'nl-NL': { number: numberNlNL, time: timeNlNL },
  'pt-BR': { number: numberPtBR, time: timePtBR },
  // Portugal's month names are Brazil's; its numbers have their own file.
  'pt-PT': { number: numberPtPT, time: timePtBR },
};

/** The first listed locale of each language stands for the language. */
const BY_LANGUAGE: Readonly<Record<string, ChartLocale>> = {
  en: LOCALES['en-US'] as ChartLocale,
  de: LOCALES['de-DE'] as ChartLocale,
  fr: LOCALES['fr-FR'] as ChartLocale,
  es: LOCALES['es-ES'] as ChartLocale,
  it: LOCALES['it-IT'] as ChartLocale,
  nl: LOCALES['nl-NL'] as ChartLocale,
  pt: LOCALES['pt-PT'] as ChartLocale,
};

/** The axis formats of `locale`; null: Vega's default (no locale, or a language without a file). */
export function chartLocale(locale: string | null): ChartLocale | null {
  if (locale === null) return null;
  let tag: Intl.Locale;
  try {
    tag = new Intl.Locale(locale);
  } catch {
    return null;
  }
  const exact = tag.region ? LOCALES[`${tag.language}-${tag.region}`] : undefined;
  return exact ?? BY_LANGUAGE[tag.language] ?? null;
}
