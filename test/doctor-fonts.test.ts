// `visync doctor`'s `report fonts` line: a configured report locale whose script has no font that
// fontconfig knows (Chromium draws with what fontconfig finds) is a FAIL naming the locale and the
// package to install: ja-JP without a CJK font printed empty boxes while the Chromium check passed.
// `visync doctor` as a user runs it, with the real fc-list, on this machine's fonts (.ci/run installs
// fonts-noto-cjk) and on a fontconfig that knows only DejaVu (FONTCONFIG_FILE), as a bare image would.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFile, sim, tempDir, visyncCli } from './helpers/harness.js';

/** A fontconfig that knows only the DejaVu fonts (Latin, Greek, Cyrillic; no CJK). */
function dejaVuOnly(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'cache'));
  const file = join(dir, 'fonts.conf');
  writeFileSync(
    file,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>${join(dir, 'cache')}</cachedir></fontconfig>\n`,
  );
  return file;
}

/** `visync doctor` with PDF reports in `locale`; its `report fonts` line and exit code. */
async function doctor(locale: string, env: Record<string, string | undefined> = {}) {
  const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
  const { path } = configFile(s, tempDir(), { top: { reports: { formats: ['html', 'pdf'], locale } } });
  // This machine's Chromium and fonts, not the test run's shared browser (test/setup/chromium-env.ts).
  const saved = { ...process.env };
  delete process.env.VISYNC_CHROMIUM_ENDPOINT;
  Object.assign(process.env, env);
  const c = await visyncCli(path, ['doctor']).finally(() => {
    for (const k of [...Object.keys(env), 'VISYNC_CHROMIUM_ENDPOINT'])
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  });
  return { code: c.code, line: c.out.find((l) => l.slice(5).startsWith('report fonts: ')) };
}

describe('doctor: a font for each report locale', () => {
  it('FAILs for ja-JP when fontconfig knows no Japanese font, naming what to install; exit 1', async () => {
    const ja = await doctor('ja-JP', { FONTCONFIG_FILE: dejaVuOnly() });
    expect(ja.line).toBe(
      'FAIL report fonts: no font for ja-JP (Japanese): its PDF would print empty boxes for its text -> apt-get install -y fonts-noto-cjk (then `fc-list :lang=ja` names one)',
    );
    expect(ja.code).toBe(1);
    // German needs only Latin letters, which DejaVu has.
    const de = await doctor('de-DE', { FONTCONFIG_FILE: dejaVuOnly() });
    expect(de.line).toMatch(/^PASS report fonts: fonts for de-DE \(DejaVu [^)]+\)$/);
  }, 120_000);

  it("PASSes for ja-JP with this machine's fonts, naming one", async () => {
    const ja = await doctor('ja-JP');
    expect(ja.line).toMatch(/^PASS report fonts: fonts for ja-JP \([^)]*CJK[^)]*\)$/);
  }, 120_000);
});
