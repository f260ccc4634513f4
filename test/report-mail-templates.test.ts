// The agency's own mail wording and the client link (docs/reports.md, "Your own wording" and "A link
// to the report"; issue #42 items 6 and 8), on real parts: two simulator nights in an fs store, the
// built bin, a local SMTP server (smtp-server, read back with mailparser), s3rver for the link.
// - a German template with a hostile client name and a note holding Markdown and HTML: subject one
//   line, text plain, HTML escaped and the note rendered with raw HTML off; a line whose placeholder
//   has no value (no link with an fs store) is left out, never "undefined";
// - the default body carries the summary and the manager's note in the report's language;
// - `report mail-preview` prints and writes that mail, byte for byte, sending nothing;
// - an unknown placeholder or a lone brace: exit 78 naming the key;
// - `visync report link` against s3rver: the URL opens the page over plain HTTP (text/html), a link
//   signed earlier than its lifetime is refused; the mail carries the link and its expiry; an fs
//   store is one line, exit 78.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { reportLink } from '../src/delivery/report-link.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { brandKey } from '../src/sinks/layout.js';
import { S3ObjectStore } from '../src/sinks/s3-store.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { mailbox } from './helpers/mailbox.js';
import { twoNightsOnce } from './helpers/report-nights.js';
import { startS3rver } from './helpers/s3rver.js';

const WEEK = '2026-W45';
const RECIPIENT = 'cmo@client.example';
const HOSTILE = 'Müller <img src=x onerror=alert(1)> & *Söhne*';
const NOTE = [
  '**Wichtig:** der Launch ist am 12. <script>alert(1)</script>',
  '',
  '- [Plan](javascript:alert(1))',
  '- zweiter Punkt',
  '',
].join('\n');
const nights = twoNightsOnce();

function visync(config: string, args: string[]) {
  return startProcess(NODE22, [builtVisync().bin, '--config', config, ...args], { guardMs: 90_000 }).exited;
}

/** The copy's config with `reports` set, and the note of `brand` for the week written. */
function configure(config: string, dir: string, brand: string, reports: Record<string, unknown>): void {
  const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
  doc.reports = { notesDir: join(dir, 'notes'), ...reports };
  writeFileSync(config, stringify(doc));
  const folder = join(dir, 'notes', 'acme', brandKey(brand));
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${WEEK}.md`), NOTE);
}

const smtp = (port: number) => ({
  host: '127.0.0.1',
  port,
  from: 'reports@agency.example',
  allowInsecure: true,
});

async function makeAndSend(config: string, brand: string) {
  const made = await visync(config, ['report', '--period', WEEK, '--brand', brand, '--format', 'html,json']);
  expect(made.code, made.stderr).toBe(0);
  const send = await visync(config, ['report', 'send', '--period', WEEK, '--brand', brand]);
  expect([send.code, send.stderr, send.stdout.trim()]).toEqual([
    0,
    '',
    `acme ${brand} ${WEEK} ${RECIPIENT}: sent`,
  ]);
}

describe('mail templates through the built bin', () => {
  it('a German template: subject one line, text plain, HTML escaped, the note rendered safely, an empty line left out', async () => {
    const box = await mailbox();
    const { dir, config, brands } = nights.copy();
    const brand = brands[0] as string;
    configure(config, dir, brand, {
      recipients: [RECIPIENT],
      smtp: smtp(box.port),
      locale: 'de-DE',
      agency: 'Agentur Nord',
    });
    const doc = parse(readFileSync(config, 'utf8')) as { accounts: Record<string, unknown>[] };
    doc.accounts[0]!.reports = {
      workspaces: {
        [brand]: {
          clientName: HOSTILE,
          mail: {
            templates: {
              default: { subject: 'English {client}' },
              de: {
                subject: '{client} – {period}: {headline} | {agency}',
                body: [
                  'Hallo {client},',
                  '',
                  '**Kurz gesagt:** {summary}',
                  '',
                  '{note}',
                  '',
                  'Online lesen: {link} (bis {expires})',
                  '',
                  'Anhang: {file}; geschweifte Klammern: {{so}}',
                  '',
                  'Ihre {agency}',
                ].join('\n'),
              },
            },
          },
        },
      },
    };
    writeFileSync(config, stringify(doc));
    await makeAndSend(config, brand);
    expect(box.mails).toHaveLength(1);
    const mail = box.mails[0]!;
    // `report mail-preview` shows that mail as it was sent, sending nothing.
    const out = h.tempDir();
    const preview = await visync(config, [
      'report',
      'mail-preview',
      '--brand',
      brand,
      '--period',
      WEEK,
      '--out',
      out,
    ]);
    expect(preview.code, preview.stderr).toBe(0);
    expect(readFileSync(join(out, 'mail.txt'), 'utf8')).toBe(`Subject: ${mail.subject}\n\n${mail.text}`);
    expect(readFileSync(join(out, 'mail.html'), 'utf8')).toBe(mail.html);
    expect(preview.stdout).toContain(
      `Subject: ${mail.subject}\nAttachment: muller-img-src-x-onerror-alert-1-sohne-2026-W45.html\n\nHallo`,
    );
    expect(box.mails).toHaveLength(1);
    // The subject: the client's name as written (a header is text), one line, the German figures.
    expect(mail.subject).toMatch(
      /^Müller <img src=x onerror=alert\(1\)> & \*Söhne\* – KW 45 2026: Gesamtwert \d+,\d( \([+−-]?\d+,\d\))? \| Agentur Nord$/,
    );
    const text = mail.text as string;
    expect(text).toContain(`Hallo ${HOSTILE},`);
    expect(text).toContain('**Kurz gesagt:** Der mittlere Gesamt-Sichtbarkeitswert');
    // The note's Markdown as written, in the text part.
    expect(text).toContain('**Wichtig:** der Launch ist am 12. <script>alert(1)</script>');
    expect(text).toContain('Anhang: ');
    expect(text).toContain('geschweifte Klammern: {so}');
    // No link with an fs store: its line is left out, never "undefined" or an empty placeholder.
    expect(text).not.toContain('Online lesen');
    expect(text).not.toMatch(/undefined|null|\{link\}/);
    const html = mail.html as string;
    expect(html).toContain('<html lang="de-DE">');
    // Values escaped, never read as Markdown or HTML.
    expect(html).toContain('Müller &lt;img src=x onerror=alert(1)&gt; &amp; *Söhne*');
    expect(html).not.toMatch(/<img|<script|href="javascript/i);
    // markdown-it refuses a javascript: target: the link stays text.
    expect(html).toContain('<li>[Plan](javascript:alert(1))</li>');
    expect(html).toContain('<strong>Kurz gesagt:</strong> Der mittlere Gesamt-Sichtbarkeitswert');
    // The note rendered as on the page: Markdown yes, raw HTML as text, a javascript: link no link.
    expect(html).toContain(
      '<strong>Wichtig:</strong> der Launch ist am 12. &lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect(html).toContain('<li>zweiter Punkt</li>');
    expect(html).not.toContain('<p><div');
    expect(html).not.toContain('Online lesen');
    expect(html).not.toMatch(/undefined|VISYNCVALUE/);
  }, 180_000);

  it("the default body carries the summary and the manager's note in the report's language", async () => {
    const box = await mailbox();
    const { dir, config, brands } = nights.copy();
    const brand = brands[1] as string;
    configure(config, dir, brand, { recipients: [RECIPIENT], smtp: smtp(box.port), locale: 'de-DE' });
    await makeAndSend(config, brand);
    const mail = box.mails[0]!;
    const text = mail.text as string;
    expect(text).toMatch(/Zusammenfassung\nDer mittlere Gesamt-Sichtbarkeitswert/);
    expect(text).toContain('Von Ihrer Kundenbetreuung\n**Wichtig:** der Launch');
    const html = mail.html as string;
    expect(html).toContain('<p><strong>Zusammenfassung</strong></p><p>Der mittlere Gesamt-Sichtbarkeitswert');
    expect(html).toContain(
      '<p><strong>Von Ihrer Kundenbetreuung</strong></p><div class="note"><p><strong>Wichtig:</strong>',
    );
    expect(html).not.toMatch(/<script|href="javascript|undefined/);
    // The rest of the default body is as before: the figures and the attachment.
    expect(text).toContain('Gesamtwert, Mittel des Zeitraums:');
    expect(text).toContain('Den vollständigen Bericht finden Sie im Anhang');
  }, 180_000);

  it('an unknown placeholder or a lone brace: exit 78 naming the key, nothing made', async () => {
    const { dir, config, brands } = nights.copy();
    configure(config, dir, brands[0] as string, {
      mail: { templates: { de: { subject: 'Bericht {clinet}', body: 'Hallo {client, hier' } } },
    });
    const r = await visync(config, ['report', '--period', WEEK]);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(
      'reports.mail.templates.de.subject: unknown placeholder {clinet}: use {client}, {period}',
    );
    expect(r.stderr).toContain('reports.mail.templates.de.body: a lone { at character 7');
    expect(h.listFiles(dir).some((k) => k.startsWith('reports/'))).toBe(false);
  }, 60_000);
});

describe('a link to the report', () => {
  it('an fs store: one line saying it needs S3, exit 78', async () => {
    const { config, brands } = nights.copy();
    const r = await visync(config, ['report', 'link', '--account', 'acme', '--brand', brands[0] as string]);
    expect(r.code).toBe(78);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^visync: a link needs an S3 store \(sinks\.s3\)/),
    ]);
    // reports.mail.link with an fs store: refused at load, naming the key.
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
    doc.reports = { mail: { link: { expires: '7d' } } };
    writeFileSync(config, stringify(doc));
    const load = await visync(config, ['report', '--period', WEEK]);
    expect(load.code).toBe(78);
    expect(load.stderr).toContain('reports.mail.link: needs sinks.s3');
  }, 60_000);

  it('with S3: the URL opens the page over plain HTTP until it expires; the mail carries it with its expiry', async () => {
    const s3 = await startS3rver({ buckets: ['agency'] });
    const box = await mailbox();
    try {
      const s = await h.sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 22, today: '2026-11-10' });
      const brand = s.accounts[0]!.workspaceIds[0]!;
      const dir = h.tempDir();
      const s3Sink = { bucket: 'agency', prefix: 'visibility/', endpoint: s3.endpoint, forcePathStyle: true };
      const o = { sinks: { s3: s3Sink }, extract: { visibilityDays: 30 } };
      h.configFile(s, dir, o);
      const synced = h.configFor(s, dir, o);
      const store = new S3ObjectStore(synced.sinks.s3!);
      // The night of 2026-11-10 in the bucket (the data, made by the sources; the link is what is tested).
      const night = await runInline({
        config: synced,
        store,
        logger: h.memoryLogger('warn').logger,
        runDate: '2026-11-10',
        retry: h.FAST_RETRY,
      });
      expect(night.status).toBe('succeeded');
      const config = join(dir, 'visync.yaml');
      const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
      doc.reports = {
        recipients: [RECIPIENT],
        smtp: smtp(box.port),
        locale: 'de-DE',
        timeZone: 'Europe/Berlin',
        mail: { link: { expires: '2d' } },
      };
      writeFileSync(config, stringify(doc));
      const made = await visync(config, ['report', '--period', WEEK, '--format', 'html,json']);
      expect(made.code, made.stderr).toBe(0);

      const link = await visync(config, [
        'report',
        'link',
        '--account',
        'acme',
        '--brand',
        brand,
        '--expires',
        '90m',
      ]);
      expect(link.code, link.stderr).toBe(0);
      const url = link.stdout.trim();
      expect(url.startsWith(`${s3.endpoint}/`)).toBe(true);
      expect(decodeURIComponent(new URL(url).pathname)).toBe(
        `/agency/visibility/reports/account=acme/brand=${brandKey(brand)}/period=${WEEK}/report.html`,
      );
      expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('5400');
      // The credentials' key id is in the URL (what it exposes), never the secret.
      expect(new URL(url).searchParams.get('X-Amz-Credential')).toMatch(/^S3RVER\//);
      expect(link.stderr).toMatch(
        /report\.html, valid until \d{4}-\d\d-\d\dT.*anyone with the link can read it/,
      );
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain('<html lang="de-DE"');
      // Over 7 days: refused as usage, S3's limit said.
      const long = await visync(config, ['report', 'link', '--brand', brand, '--expires', '8d']);
      expect(long.code).toBe(64);
      expect(long.stderr).toContain('at most 7d');

      // Signed two hours ago for one hour: S3 refuses it.
      const old = await reportLink(
        store,
        { account: 'acme', brandId: brand, period: WEEK },
        3600,
        new Date(Date.now() - 2 * 3600_000),
      );
      const refused = await fetch(old.url);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('expired');

      // The mail carries the link and when it stops working, in German and Berlin time.
      const send = await visync(config, ['report', 'send', '--period', WEEK, '--brand', brand]);
      expect([send.code, send.stdout.trim()]).toEqual([0, `acme ${brand} ${WEEK} ${RECIPIENT}: sent`]);
      const mail = box.mails[0]!;
      const text = mail.text as string;
      const mailed =
        /Den Bericht online öffnen \(der Link gilt bis (\d+\. \w+ 2026 um \d\d:\d\d MEZ)\):\n(\S+)/.exec(
          text,
        );
      expect(mailed, text).not.toBeNull();
      expect(new URL(mailed![2]!).searchParams.get('X-Amz-Expires')).toBe(String(2 * 86400));
      expect((await fetch(mailed![2]!)).status).toBe(200);
      expect(mail.html).toContain(`<a href="${mailed![2]!.replaceAll('&', '&amp;')}">`);
      store.close();
    } finally {
      await s3.close();
    }
  }, 180_000);
});
