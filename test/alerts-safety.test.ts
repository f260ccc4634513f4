// Alerts are safe to post (issue #29): API strings and upstream error bodies reach a real local
// receiver escaped for Slack, so `<!channel>` or `<https://evil.example|x>` never become a mention
// or a link, while the `visync` record keeps them raw (it is data); and a webhook over plain http
// to a host that is not loopback is refused when the config loads, like an account's baseUrl.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config/read-config.js';
import { type AlertPayload, reportAlert, runAlert, staleAlert } from '../src/delivery/webhooks/payloads.js';
import { sendAlert } from '../src/delivery/webhooks/send.js';
import type { Manifest } from '../src/records/manifest.js';
import { runOnceCli, sim, tempDir, visyncCli } from './helpers/harness.js';
import { partialRunManifest } from './helpers/manifest-fixture.js';
import { receiver } from './helpers/webhook.js';

const MENTION = '<!channel>';
const LINK = '<https://evil.example/login|Re-authenticate here>';
const AMP = 'Smith & <Sons>';

function manifest(): Manifest {
  return partialRunManifest({
    workspaces: [
      { brand_id: MENTION, status: 'failed', error: `HTTP 502: ${LINK}` },
      { brand_id: 'brd_ok', status: 'succeeded' },
    ],
    loads: [{ table: 'prompts', job_id: 'j2', status: 'failed', rows: 0, error: `denied: ${AMP}` }],
    error: `upstream said ${LINK} ${MENTION}`,
  });
}

/** The Slack-visible strings of a received alert: its text and every field value. */
function slackStrings(body: AlertPayload): string[] {
  return [body.text, ...body.attachments.flatMap((a) => a.fields.map((f) => f.value))];
}

describe('alert text is escaped for Slack', () => {
  it('run, report and stale alerts: hostile ids and bodies arrive as text, the visync record raw', async () => {
    const hook = await receiver([200]);
    const payloads = [
      runAlert(manifest(), ['partial']),
      reportAlert({ account: 'acme', brandId: MENTION, period: '2026-10', location: `out/${AMP}` }, [
        'report',
      ]),
      reportAlert(
        { account: 'acme', brandId: LINK, period: '2026-10', staleReason: `no run for ${MENTION}` },
        ['stale'],
      ),
      staleAlert({ account: `a${MENTION}`, lastSuccessAt: undefined, now: new Date(), staleAfterHours: 30 }),
    ];
    for (const p of payloads) expect((await sendAlert(hook.url, p!, { baseDelayMs: 1 })).ok).toBe(true);
    expect(hook.bodies).toHaveLength(4);
    const bodies = hook.bodies as AlertPayload[];
    for (const body of bodies) for (const s of slackStrings(body)) expect(s).not.toMatch(/<|>/);
    const shown = bodies.flatMap(slackStrings).join('\n');
    expect(shown).toContain('&lt;!channel&gt;');
    expect(shown).toContain('&lt;https://evil.example/login|Re-authenticate here&gt;');
    expect(shown).toContain('Smith &amp; &lt;Sons&gt;');
    // Escaped once: no `&amp;lt;`.
    expect(shown).not.toContain('&amp;lt;');
    const [run, made, stale] = bodies as [AlertPayload, AlertPayload, AlertPayload];
    expect(run.visync.failed_workspaces).toEqual([{ brand_id: MENTION, error: `HTTP 502: ${LINK}` }]);
    expect(run.visync.failed_tables).toEqual([{ table: 'prompts', error: `denied: ${AMP}` }]);
    expect(made.visync.brand_id).toBe(MENTION);
    expect(stale.visync).toMatchObject({ brand_id: LINK, reason: `no run for ${MENTION}` });
  });
});

describe('a real run with hostile workspace ids', () => {
  it('run --once: the partial run alert shows them (and the API error quoting them) as text', async () => {
    const hook = await receiver([200]);
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const hostile = [MENTION, '<https://evil.example|x>', 'a&b'];
    const r = await runOnceCli(s, tempDir(), [], {
      accounts: { acme: { brands: [...s.accounts[0]!.workspaceIds, ...hostile] } },
      top: { alerts: { webhook: hook.url, on: ['partial'] } },
    });
    expect(r.code).toBe(2);
    expect(hook.bodies).toHaveLength(1);
    const body = hook.bodies[0] as AlertPayload;
    for (const shown of slackStrings(body)) expect(shown).not.toMatch(/<|>/);
    const fields = body.attachments[0]!.fields.map((f) => f.value).join('\n');
    expect(fields).toContain('&lt;!channel&gt;: ');
    expect(fields).toContain('&lt;https://evil.example|x&gt;: ');
    expect(fields).toContain('a&amp;b: ');
    expect(body.visync.failed_workspaces.map((w) => w.brand_id).sort()).toEqual([...hostile].sort());
  });
});

describe('alerts.webhook over plain http', () => {
  const config = (webhook: string) =>
    `accounts:\n  - name: acme\n    apiKey: k\n    baseUrl: http://127.0.0.1:1/api/v1\nsinks:\n  fs: {}\nalerts:\n  webhook: ${webhook}\n`;
  const issues = (webhook: string) => {
    try {
      parseConfig(config(webhook), { source: 'visync.yaml', env: {} });
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
    }
  };

  it('is refused for a host that is not loopback, naming alerts.webhook; loopback and https load', () => {
    expect(issues('http://hooks.example/services/T0/B0/secret')).toEqual([
      expect.stringMatching(
        /^alerts\.webhook: must use https: plain http is only allowed for a loopback host/,
      ),
    ]);
    expect(issues('http://10.0.0.5:8080/hook')).toHaveLength(1);
    expect(issues('http://127.0.0.1:9999/hook')).toEqual([]);
    expect(issues('http://localhost:9999/hook')).toEqual([]);
    expect(issues('http://[::1]:9999/hook')).toEqual([]);
    expect(issues('https://hooks.example/services/T0/B0/secret')).toEqual([]);
  });

  it('stops a command with exit 78, the key named and the URL secret not printed', async () => {
    const path = join(tempDir(), 'visync.yaml');
    writeFileSync(path, config('http://hooks.example/services/T0/B0/s3cr3tpath'));
    const r = await visyncCli(path, ['run', '--once']);
    expect(r.code).toBe(78);
    const text = [...r.out, ...r.err].join('\n');
    expect(text).toContain('alerts.webhook');
    expect(text).not.toContain('s3cr3tpath');
  });
});
