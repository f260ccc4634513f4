// Nightly schedules per account: each account's own cron and time zone, the top-level one for the
// rest; installing again after a config change updates and removes them (what a reload does).
import { describe, expect, it } from 'vitest';
import { installSchedules } from '../jobs/schedules.js';
import type { Config } from '../src/config/schema.js';
import { sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig } from './helpers/jobs.js';

const localTime = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(new Date(ms));

describe('nightly schedules per account', () => {
  it("each account's own cron and time zone; the rest keep schedule.nightly; a reinstall follows the config", async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 1 },
        { name: 'nyc', workspaces: 1 },
        { name: 'tokyo', workspaces: 1 },
      ],
    });
    const config = jobsConfig(s, tempDir(), {
      top: { schedule: { nightly: { cron: '0 2 * * *', tz: 'UTC' } } },
      accounts: {
        nyc: { schedule: { tz: 'America/New_York' } },
        tokyo: { schedule: { cron: '30 4 * * *', tz: 'Asia/Tokyo' } },
      },
    });
    const c = jobsClient(config);
    await installSchedules(c.queues, config);
    const scheduler = async (name: string) => (await c.queues.for(name).getJobSchedulers(0, -1))[0]!;
    const acme = await scheduler('acme');
    expect([acme.pattern, acme.tz]).toEqual(['0 2 * * *', 'UTC']);
    const nyc = await scheduler('nyc');
    expect([nyc.pattern, nyc.tz]).toEqual(['0 2 * * *', 'America/New_York']);
    expect(localTime(nyc.next!, 'America/New_York')).toBe('02:00');
    const tokyo = await scheduler('tokyo');
    expect([tokyo.pattern, tokyo.tz]).toEqual(['30 4 * * *', 'Asia/Tokyo']);
    expect(localTime(tokyo.next!, 'Asia/Tokyo')).toBe('04:30');

    // The next config: tokyo moves to 05:00, nyc is gone.
    const next: Config = {
      ...config,
      accounts: config.accounts
        .filter((a) => a.name !== 'nyc')
        .map((a) => (a.name === 'tokyo' ? { ...a, schedule: { cron: '0 5 * * *', tz: 'Asia/Tokyo' } } : a)),
    };
    const r = await installSchedules(c.queues, next);
    expect(r.removed).toEqual(['nyc']);
    expect(await c.queues.for('nyc').getJobSchedulers(0, -1)).toEqual([]);
    const moved = await scheduler('tokyo');
    expect(moved.pattern).toBe('0 5 * * *');
    expect(localTime(moved.next!, 'Asia/Tokyo')).toBe('05:00');
    expect(s.log).toHaveLength(0);
  });
});
