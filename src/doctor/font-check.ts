// PDF reports need a font for the script of each report locale: Chromium draws with the fonts
// fontconfig finds, and without one for Japanese it prints empty boxes, while the browser itself
// starts fine. Asks fontconfig (`fc-list :lang=ja family`) on the machine the browser runs on;
// a browser reached through VISYNC_CHROMIUM_ENDPOINT has its fonts elsewhere, so it is not checked.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type CheckResult, fail, pass, warn } from './check.js';

export const FONT_CHECK = 'report fonts';

const run = promisify(execFile);

/** The fontconfig language of a locale's script: `ja`, `zh-tw`, `ar`. */
export function fontLanguage(locale: string): string {
  const l = new Intl.Locale(locale);
  if (l.language !== 'zh') return l.language;
  // Chinese fonts are told apart by region in fontconfig: traditional (tw, hk, mo) or simplified.
  const region = l.region?.toLowerCase() ?? (l.maximize().script === 'Hant' ? 'tw' : 'cn');
  return `zh-${region}`;
}

const CJK = new Set(['ja', 'ko', 'zh']);

/** The Debian package with a font for a locale's script (the deploy image installs both). */
export function fontPackage(locale: string): string {
  return CJK.has(new Intl.Locale(locale).language) ? 'fonts-noto-cjk' : 'fonts-noto-core';
}

/** The families fontconfig has for `lang`, sorted; null when fc-list is not installed. */
async function families(lang: string, env: NodeJS.ProcessEnv): Promise<string[] | null> {
  try {
    const { stdout } = await run('fc-list', [`:lang=${lang}`, 'family'], { env, timeout: 10_000 });
    const names = stdout.split('\n').flatMap((l) => (l.trim() ? [l.split(',')[0]!.trim()] : []));
    return [...new Set(names)].sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * One line for the report locales (none set: English): PASS naming a font for each, FAIL naming
 * the locales without one and what to install.
 */
export async function checkReportFonts(
  locales: readonly string[],
  o: { env: NodeJS.ProcessEnv; remoteBrowser: boolean },
): Promise<CheckResult> {
  const wanted = locales.length ? [...new Set(locales)].sort() : ['en'];
  if (o.remoteBrowser)
    return warn(
      FONT_CHECK,
      `not checked: the browser at VISYNC_CHROMIUM_ENDPOINT has its own fonts (reports in ${wanted.join(', ')})`,
      `where it runs, \`fc-list :lang=${fontLanguage(wanted[0]!)}\` should name a font for each report locale`,
    );
  const found: string[] = [];
  const missing: string[] = [];
  for (const locale of wanted) {
    const lang = fontLanguage(locale);
    const names = await families(lang, o.env);
    if (names === null)
      return warn(
        FONT_CHECK,
        'fc-list not found: cannot tell whether Chromium has a font for each report locale',
        'apt-get install -y fontconfig',
      );
    if (names.length) found.push(`${locale} (${names[0]})`);
    else missing.push(locale);
  }
  if (missing.length === 0) return pass(FONT_CHECK, `fonts for ${found.join(', ')}`);
  const named = new Intl.DisplayNames('en', { type: 'language' });
  const list = missing.map((l) => `${l} (${named.of(new Intl.Locale(l).language) ?? l})`).join(', ');
  const packages = [...new Set(missing.map(fontPackage))].join(' ');
  return fail(
    FONT_CHECK,
    `no font for ${list}: ${missing.length === 1 ? 'its PDF' : 'their PDFs'} would print empty boxes for ${missing.length === 1 ? 'its' : 'their'} text`,
    `apt-get install -y ${packages} (then \`fc-list :lang=${fontLanguage(missing[0]!)}\` names one)`,
  );
}
