// The report's message catalogues (src/report/i18n/): every language has every English key, the
// same {{placeholders}} as English, and each plural message in every form its language's
// Intl.PluralRules knows; the files on disk are the ones the code imports.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AREAS, CATALOGUES, LANGUAGES, type Messages } from '../src/report/i18n/catalogues/index.js';
import { catalogueLanguage, translator } from '../src/report/i18n/translate.js';

const DIR = join(import.meta.dirname, '../src/report/i18n/catalogues');
const PLURAL = /_(zero|one|two|few|many|other)$/;

const placeholders = (s: string) => [...s.matchAll(/\{\{\s*([^}\s,]+)[^}]*\}\}/g)].map((m) => m[1]).sort();
/** A key's plural stem (`days_one` -> `days`), or null for a plain message. */
const stem = (key: string) => (PLURAL.test(key) ? key.replace(PLURAL, '') : null);

/** What a catalogue lacks against English: missing keys, other placeholders, missing plural forms. */
function catalogueProblems(lang: string, en: Messages, own: Messages): string[] {
  const problems: string[] = [];
  const forms = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
  const stems = new Set(
    Object.keys(en)
      .map(stem)
      .filter((s) => s !== null),
  );
  for (const [key, english] of Object.entries(en)) {
    if (stem(key) !== null) continue;
    if (!(key in own)) problems.push(`missing ${key}`);
    else if (placeholders(own[key]!).join() !== placeholders(english).join())
      problems.push(`${key}: placeholders ${placeholders(own[key]!)} not ${placeholders(english)}`);
  }
  for (const s of stems) {
    const want = placeholders(en[`${s}_other`] ?? '').join();
    for (const form of forms) {
      const text = own[`${s}_${form}`];
      if (text === undefined) problems.push(`missing ${s}_${form}`);
      else if (form !== 'one' && placeholders(text).join() !== want)
        problems.push(`${s}_${form}: placeholders ${placeholders(text)} not ${want}`);
    }
  }
  for (const key of Object.keys(own)) {
    const s = stem(key);
    if (s === null ? !(key in en) : !stems.has(s)) problems.push(`unknown ${key}`);
  }
  return problems;
}

describe('report catalogues', () => {
  it('has a folder per language and a file per area, each imported', () => {
    expect(
      readdirSync(DIR, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort(),
    ).toEqual([...LANGUAGES].sort());
    for (const lang of LANGUAGES)
      expect(readdirSync(join(DIR, lang)).sort()).toEqual(AREAS.map((a) => `${a}.json`).sort());
  });

  for (const lang of LANGUAGES)
    for (const area of AREAS)
      it(`${lang}/${area}.json has every English key, placeholder and plural form`, () => {
        expect(catalogueProblems(lang, CATALOGUES.en[area], CATALOGUES[lang][area])).toEqual([]);
      });

  it('finds a missing key, a changed placeholder and a missing plural form', () => {
    const en = { a: 'A {{n}}', b_one: '{{count}} day', b_other: '{{count}} days' };
    expect(
      catalogueProblems('fr', en, { a: 'A {{m}}', b_one: '{{count}} jour', b_other: '{{count}} jours' }),
    ).toEqual(['a: placeholders m not n', 'missing b_many']);
    expect(catalogueProblems('de', en, { b_one: '{{count}} Tag', b_other: '{{count}} Tage' })).toEqual([
      'missing a',
    ]);
  });

  it('chooses the catalogue by language and keeps English words for a language without one', () => {
    expect(catalogueLanguage('de-AT')).toBe('de');
    expect(catalogueLanguage('pt-BR')).toBe('pt');
    expect(catalogueLanguage('ja-JP')).toBeNull();
    const de = translator('de-AT');
    expect([de.lang, de.htmlLang, de.hasCatalogue]).toEqual(['de', 'de-AT', true]);
    expect(de.t('pdf:footer.page', { page: 1, pages: 6 })).toBe('Seite 1 von 6');
    const ja = translator('ja-JP');
    expect([ja.lang, ja.htmlLang, ja.hasCatalogue]).toEqual(['en', 'en', false]);
    expect(ja.t('pdf:footer.page', { page: 1, pages: 6 })).toBe('Page 1 of 6');
    expect(translator(null).hasCatalogue).toBe(true);
    expect(() => de.t('pdf:no.such.key')).toThrow(/pdf:no.such.key/);
  });
});
