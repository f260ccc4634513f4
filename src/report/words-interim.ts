// INTERIM until the i18n lane's src/report/i18n/translate.ts is merged: the same i18next set-up for
// the summary, overview and competitors areas only. Replaced by translator() of src/report/i18n.
import i18next from 'i18next';
import de_competitors from './i18n/catalogues/de/competitors.json' with { type: 'json' };
import de_overview from './i18n/catalogues/de/overview.json' with { type: 'json' };
import de_summary from './i18n/catalogues/de/summary.json' with { type: 'json' };
import en_competitors from './i18n/catalogues/en/competitors.json' with { type: 'json' };
import en_overview from './i18n/catalogues/en/overview.json' with { type: 'json' };
import en_summary from './i18n/catalogues/en/summary.json' with { type: 'json' };
import es_competitors from './i18n/catalogues/es/competitors.json' with { type: 'json' };
import es_overview from './i18n/catalogues/es/overview.json' with { type: 'json' };
import es_summary from './i18n/catalogues/es/summary.json' with { type: 'json' };
import fr_competitors from './i18n/catalogues/fr/competitors.json' with { type: 'json' };
import fr_overview from './i18n/catalogues/fr/overview.json' with { type: 'json' };
import fr_summary from './i18n/catalogues/fr/summary.json' with { type: 'json' };
import it_competitors from './i18n/catalogues/it/competitors.json' with { type: 'json' };
import it_overview from './i18n/catalogues/it/overview.json' with { type: 'json' };
import it_summary from './i18n/catalogues/it/summary.json' with { type: 'json' };
import nl_competitors from './i18n/catalogues/nl/competitors.json' with { type: 'json' };
import nl_overview from './i18n/catalogues/nl/overview.json' with { type: 'json' };
import nl_summary from './i18n/catalogues/nl/summary.json' with { type: 'json' };
import pt_competitors from './i18n/catalogues/pt/competitors.json' with { type: 'json' };
import pt_overview from './i18n/catalogues/pt/overview.json' with { type: 'json' };
import pt_summary from './i18n/catalogues/pt/summary.json' with { type: 'json' };

const CATALOGUES = {
  en: { summary: en_summary, overview: en_overview, competitors: en_competitors },
  de: { summary: de_summary, overview: de_overview, competitors: de_competitors },
  fr: { summary: fr_summary, overview: fr_overview, competitors: fr_competitors },
  es: { summary: es_summary, overview: es_overview, competitors: es_competitors },
  it: { summary: it_summary, overview: it_overview, competitors: it_competitors },
  nl: { summary: nl_summary, overview: nl_overview, competitors: nl_competitors },
  pt: { summary: pt_summary, overview: pt_overview, competitors: pt_competitors },
};
const LANGS = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt'] as const;
export type Translate = (
  key: `${'summary' | 'overview' | 'competitors'}:${string}`,
  params?: Record<string, unknown>,
) => string;

export function translator(locale: string | null): { lang: string; t: Translate } {
  const language = locale === null ? 'en' : new Intl.Locale(locale).language;
  const lang = (LANGS as readonly string[]).includes(language) ? language : 'en';
  const i = i18next.createInstance();
  void i.init({
    lng: lang,
    fallbackLng: 'en',
    ns: ['summary', 'overview', 'competitors'],
    resources: CATALOGUES,
    initAsync: false,
    keySeparator: false,
    nsSeparator: ':',
    interpolation: { escapeValue: false },
  });
  const t: Translate = (key, params) => {
    if (!i.exists(key, params ?? {})) throw new Error(`report message ${key} is in no catalogue`);
    return (i.t as unknown as (k: string, o: Record<string, unknown>) => string)(key, params ?? {});
  };
  return { lang, t };
}
