// A client removed from the account is sent its report (issue #39, case 5): its October made with
// `visync report --period 2026-10 --brand B` into the store, then `visync report send --period
// 2026-10`, with --brand and without, through the BUILT visync (test/helpers/built-bin.ts) to a
// local SMTP server (test/helpers/mailbox.ts). Data: test/helpers/removed-client.ts.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BuiltVisync, builtVisync, NODE22 } from './helpers/built-bin.js';
import { type CliRun, startProcess } from './helpers/cli-process.js';
import { mailbox } from './helpers/mailbox.js';
import { removedClientOnce } from './helpers/removed-client.js';

let built: BuiltVisync;
beforeAll(() => {
  built = builtVisync();
}, 60_000);

const nights = removedClientOnce();
const RECIPIENT = 'cmo@client.example';

/** `visync ARGS` through the built bin, with the copy's config, to its end. */
function visync(dir: string, args: string[]): Promise<CliRun> {
  return startProcess(NODE22, [built.bin, '--config', join(dir, 'visync.yaml'), ...args], {
    cwd: dir,
    guardMs: 60_000,
  }).exited;
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('a removed client is sent its report', () => {
  it('made with --brand, then sent by `report send --period` with --brand and without', async () => {
    const box = await mailbox();
    const { dir, kept, removed } = nights.copy({
      reports: {
        recipients: [RECIPIENT],
        formats: ['html', 'json'],
        smtp: { host: '127.0.0.1', port: box.port, from: 'reports@agency.example', allowInsecure: true },
      },
    });
    const made = await visync(dir, ['report', '--period', '2026-10', '--brand', removed]);
    expect([made.code, made.stderr]).toEqual([0, '']);
    const one = await visync(dir, ['report', 'send', '--period', '2026-10', '--brand', removed]);
    expect([one.code, one.stderr]).toEqual([0, '']);
    expect(lines(one.stdout)).toEqual([`acme ${removed} 2026-10 ${RECIPIENT}: sent`]);
    expect(box.mails).toHaveLength(1);
    expect(box.mails[0]?.to).toMatchObject({ text: RECIPIENT });
    // Without --brand: the removed client is named (already sent), not skipped.
    const kept1 = await visync(dir, ['report', '--period', '2026-10']);
    expect(kept1.code).toBe(0);
    const all = await visync(dir, ['report', 'send', '--period', '2026-10']);
    expect([all.code, all.stderr]).toEqual([0, '']);
    expect(lines(all.stdout).sort()).toEqual(
      [
        `acme ${kept} 2026-10 ${RECIPIENT}: sent`,
        `acme ${removed} 2026-10 ${RECIPIENT}: already sent`,
      ].sort(),
    );
    expect(box.mails).toHaveLength(2);
  });
});
