// A report is one artefact (docs/reports.md, "The artefact rule"; issue #39, case 2): made again with
// fewer formats, its folder holds only the new files and manifest.json lists exactly them; a send
// through the built bin to a local SMTP server attaches only files of the version the manifest names
// (each checked against its SHA-256), and the delivery records name that version. Real parts: two
// simulator nights in an fs store, Chromium for the PDF, the built bin, smtp-server.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { brandKey, reportPrefix } from '../src/sinks/layout.js';
import { sha256Hex } from '../src/util/hash.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { mailbox } from './helpers/mailbox.js';
import { twoNightsOnce } from './helpers/report-nights.js';

const WEEK = '2026-W45';
const RECIPIENT = 'cmo@client.example';
const nights = twoNightsOnce();

/** The copy's config with a reports block mailing `port` and the notes folder; returns the notes file of `brand`. */
function configure(config: string, dir: string, port: number, brand: string): string {
  const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
  doc.reports = {
    recipients: [RECIPIENT],
    notesDir: join(dir, 'notes'),
    smtp: { host: '127.0.0.1', port, from: 'reports@agency.example', allowInsecure: true },
  };
  writeFileSync(config, stringify(doc));
  const folder = join(dir, 'notes', 'acme', brandKey(brand));
  mkdirSync(folder, { recursive: true });
  return join(folder, `${WEEK}.md`);
}

function visync(config: string, args: string[]) {
  return startProcess(NODE22, [builtVisync().bin, '--config', config, ...args], { guardMs: 90_000 }).exited;
}

/** `report` of the week for one workspace in `format`, and `more` options. */
const weekReport = (brand: string, format: string, more: string[] = []) => [
  'report',
  ...['--period', WEEK, '--brand', brand, '--format', format],
  ...more,
];

interface Manifest {
  version: string;
  to_date: boolean;
  files: { key: string; sha256: string }[];
}

describe('a report is one artefact', () => {
  it('made again with --format html,json: the old PDF is gone, the manifest lists the folder, the mail carries the new notes only', async () => {
    const box = await mailbox();
    const { dir, config, brands } = nights.copy();
    const brand = brands[0] as string;
    const notes = configure(config, dir, box.port, brand);
    const make = (format: string) => visync(config, weekReport(brand, format));

    writeFileSync(notes, 'OLD-NOTE: the launch slipped a week.\n');
    const first = await make('html,json,pdf');
    expect(first.code, first.stderr).toBe(0);
    const prefix = reportPrefix('acme', brand, WEEK);
    expect(h.listFiles(dir).filter((k) => k.startsWith(prefix))).toContain(`${prefix}report.pdf`);

    writeFileSync(notes, 'NEW-NOTE: the launch is on time.\n');
    const second = await make('html,json');
    expect(second.code, second.stderr).toBe(0);
    // The folder holds the new version only, and its manifest lists exactly it.
    const folder = h.listFiles(dir).filter((k) => k.startsWith(prefix));
    expect(folder.sort()).toEqual([`${prefix}manifest.json`, `${prefix}report.html`, `${prefix}report.json`]);
    const manifest = JSON.parse(h.readText(dir, `${prefix}manifest.json`)) as Manifest;
    expect(manifest.files.map((f) => f.key).sort()).toEqual([`${prefix}report.html`, `${prefix}report.json`]);
    for (const f of manifest.files) expect(sha256Hex(h.readBytes(dir, f.key))).toBe(f.sha256);
    expect(manifest.version).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.to_date).toBe(false);

    const send = await visync(config, ['report', 'send', '--period', WEEK, '--brand', brand]);
    expect([send.code, send.stderr]).toEqual([0, '']);
    expect(send.stdout.trim()).toBe(`acme ${brand} ${WEEK} ${RECIPIENT}: sent`);
    expect(box.mails).toHaveLength(1);
    const mail = box.mails[0]!;
    expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      [expect.stringMatching(new RegExp(`-${WEEK}\\.html$`)), 'text/html'],
    ]);
    const attached = mail.attachments[0]!.content.toString('utf8');
    expect(attached).toContain('NEW-NOTE');
    expect(attached).not.toContain('OLD-NOTE');
    // The records name the version that was sent.
    const delivery = JSON.parse(h.readText(dir, `${prefix}delivery.json`));
    expect(delivery).toMatchObject({ state: 'sent', version: manifest.version, to_date: false });
    const sends = h.listFiles(dir).filter((k) => k.startsWith(`${prefix}sends/`));
    expect(sends.map((k) => JSON.parse(h.readText(dir, k)))).toEqual([
      expect.objectContaining({
        recipient: RECIPIENT,
        state: 'sent',
        version: manifest.version,
        to_date: false,
      }),
    ]);
  }, 180_000);

  it('a file the manifest does not list, or whose bytes are not the listed ones, is never attached', async () => {
    const box = await mailbox();
    const { dir, config, brands } = nights.copy();
    const brand = brands[0] as string;
    configure(config, dir, box.port, brand);
    const prefix = reportPrefix('acme', brand, WEEK);
    const r = await visync(config, weekReport(brand, 'json,html'));
    expect(r.code, r.stderr).toBe(0);
    // A PDF left in the folder out of the manifest (as a crash between the manifest and the removal
    // would leave it): the manifest has no PDF, so the page is attached, not that file.
    writeFileSync(join(dir, `${prefix}report.pdf`), '%PDF-1.4 an older version');
    // report.html replaced behind the manifest's back: refused, said, nothing mailed.
    const html = join(dir, `${prefix}report.html`);
    writeFileSync(html, readFileSync(html, 'utf8').replace('</body>', '<p>tampered</p></body>'));
    const send = await visync(config, ['report', 'send', '--period', WEEK, '--brand', brand]);
    expect(send.code).toBe(1);
    expect(send.stdout.trim()).toBe(
      `acme ${brand} ${WEEK} ${RECIPIENT}: failed: ${prefix}report.html is not the file its manifest names (another SHA-256): it is not attached; make the report again`,
    );
    expect(box.mails).toEqual([]);
    // Made again, the folder is whole: the stray PDF removed, the page its own; the send goes.
    const again = await visync(config, weekReport(brand, 'json,html'));
    expect(again.code, again.stderr).toBe(0);
    expect(h.listFiles(dir).filter((k) => k.startsWith(prefix) && k.includes('report.'))).toEqual([
      `${prefix}report.html`,
      `${prefix}report.json`,
    ]);
    const resend = await visync(config, ['report', 'send', '--period', WEEK, '--brand', brand]);
    expect(resend.code, resend.stdout).toBe(0);
    expect(box.mails.map((m) => m.attachments.map((a) => a.contentType))).toEqual([['text/html']]);
  }, 120_000);

  it('under --out, a re-make with fewer formats removes the format it no longer has', async () => {
    const { config, brands } = nights.copy();
    const brand = brands[0] as string;
    const out = h.tempDir();
    const folder = join(out, 'account=acme', `brand=${brandKey(brand)}`, `period=${WEEK}`);
    for (const format of ['html,json,pdf', 'html,json']) {
      const r = await h.visyncCli(config, weekReport(brand, format, ['--out', out]));
      expect(r.code, r.err.join('\n')).toBe(0);
    }
    expect(h.listFiles(folder).sort()).toEqual(['report.html', 'report.json']);
    // A link planted where the PDF was is refused, as a write through it would be; where it points is kept.
    const victim = join(h.tempDir(), 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, join(folder, 'report.pdf'));
    const linked = await h.visyncCli(config, weekReport(brand, 'html,json', ['--out', out]));
    expect([linked.code, linked.err]).toEqual([
      1,
      [
        `visync: account acme: refusing to remove the symbolic link ${join(folder, 'report.pdf')}: it was not made by visync; remove it or choose another --out`,
      ],
    ]);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
  }, 120_000);
});
