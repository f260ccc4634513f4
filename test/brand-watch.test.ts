// Brand watch delivery and rules: the alerts webhook (a local HTTP server) gets one message for the
// night with changes, grouped by workspace, most severe first, API text escaped for Slack; the
// watch rules' thresholds, overrides and quiet types shape it; bad rules are named by key.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config/read-config.js';
import * as h from './helpers/harness.js';
import { twoWatchedNights } from './helpers/watch-nights.js';
import { receiver } from './helpers/webhook.js';

interface Body {
  text: string;
  visync: { event: string; brand_events: { brand_id: string; event_type: string }[] };
}

describe('brand watch alert', () => {
  it('one message per run with changes, most severe workspace first, Slack-escaped, under the rules', async () => {
    const hook = await receiver([200]);
    const dir = h.tempDir();
    // The first workspace's id is known only once the simulator runs: ids derive from seed and name.
    const ids = (await h.sim({ seed: 7, accounts: [{ name: 'acme', workspaces: 3 }] })).accounts[0]
      ?.workspaceIds as string[];
    const o = {
      top: { alerts: { webhook: hook.url, on: ['events'] }, watch: { scorePoints: 20 } },
      accounts: {
        acme: {
          watch: {
            quiet: ['recommendation_closed'],
            workspaces: { [ids[0] as string]: { scorePoints: 10 } },
          },
        },
      },
    };
    const { config, runs } = await twoWatchedNights(dir, o);
    expect(hook.bodies).toHaveLength(1);
    const body = hook.bodies[0] as Body;
    expect(body.visync.event).toBe('events');
    expect(body.text).toContain(`run ${runs[1]}`);
    // The engine drop of 15 points passes the workspace's 10, not the top level's 20.
    expect(body.visync.brand_events.map((e) => `${e.brand_id} ${e.event_type}`)).toEqual([
      `${ids[0]} false_claim_new`,
      `${ids[0]} engine_score_drop`,
      `${ids[2]} workspace_removed`,
      `${ids[1]} competitor_new`,
    ]);
    expect(body.text).toContain('quiet: recommendation closed (done or dismissed) 1');
    expect(body.text).toContain('Rival &lt;Corp&gt; &amp; Sons');
    expect(body.text).toContain('"The &lt;b&gt;brand&lt;/b&gt; &amp; co. was discontinued"');
    expect(body.text).not.toMatch(/<b>|<Corp>/);

    // A replay of the night records it again and alerts nothing more.
    const replay = await h.visyncCli(config, ['replay', '--run', runs[1] as string, '--log-level', 'silent']);
    expect(replay.code).toBe(0);
    expect(hook.bodies).toHaveLength(1);
  });
});

describe('watch config', () => {
  const base = (extra: string) =>
    `accounts:\n  - name: acme\n    apiKey: ${'$'}{K}\n    baseUrl: http://127.0.0.1:1/api/v1\n${extra}sinks:\n  fs: {}\n`;
  const problems = (text: string) => {
    try {
      parseConfig(text, { source: 'visync.yaml', env: { K: 'k' } });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
    }
    throw new Error('expected a ConfigError');
  };

  it('names the key of a bad rule', () => {
    expect(problems(`${base('')}watch:\n  types: [score_drop, score_fall]\n`)).toEqual([
      expect.stringMatching(/^watch\.types\.1: expected one of score_drop, score_rise/),
    ]);
    expect(problems(`${base('')}watch:\n  scorePoints: -3\n`)).toEqual([
      expect.stringMatching(/^watch\.scorePoints: /),
    ]);
    expect(problems(`${base('')}watch:\n  workspaces: {}\n`)).toEqual([
      expect.stringMatching(/^watch\.workspaces: workspaces belong in an account's watch block/),
    ]);
    expect(problems(base('    watch:\n      workspaces:\n        w1: { quiet: [nope] }\n'))).toEqual([
      expect.stringMatching(/^accounts\.0\.watch\.workspaces\.w1\.quiet\.0: expected one of/),
    ]);
    expect(problems(`${base('')}alerts:\n  webhook: https://hooks.example/x\n  on: [event]\n`)).toEqual([
      expect.stringMatching(/^alerts\.on\.0: expected one of failed, partial, stale, report, events/),
    ]);
  });

  it('names the key of a bad weekly digest setting', () => {
    expect(problems(`${base('')}watch:\n  digest: { day: mon }\n`)).toEqual([
      'watch.digest.day: expected a weekday: monday, tuesday, wednesday, thursday, friday, saturday, sunday',
    ]);
    expect(problems(`${base('')}watch:\n  digest: { day: monday, top: 0 }\n`)).toEqual([
      'watch.digest.top: expected a whole number between 1 and 100',
    ]);
    expect(problems(`${base('')}watch:\n  digest: monday\n`)).toEqual([
      expect.stringMatching(/^watch\.digest: expected a mapping with day/),
    ]);
    expect(problems(base('    watch:\n      digest: { day: funday }\n'))).toEqual([
      'accounts.0.watch.digest.day: expected a weekday: monday, tuesday, wednesday, thursday, friday, saturday, sunday',
    ]);
    expect(
      problems(base('    watch:\n      workspaces:\n        w1: { digest: { day: monday } }\n')),
    ).toEqual([expect.stringMatching(/^accounts\.0\.watch\.workspaces\.w1/)]);
  });

  it('leaves events off unless alerts.on names them', () => {
    const c = parseConfig(`${base('')}alerts:\n  webhook: https://hooks.example/x\n`, {
      source: 't',
      env: { K: 'k' },
    });
    expect(c.alerts?.on).toEqual(['failed', 'partial', 'stale']);
  });
});
