// How a run's workspaces are cut into jobs: a few workspaces each, and no job crossing a window of
// the account's budget when its workspaces fit in one (a job that does waits a window for its last
// calls and comes back to compete with the next window's job).
import { describe, expect, it } from 'vitest';
import { jobWorkspaces, planWorkspaceJobs, type WorkspacesDoneJobData } from '../jobs/definitions.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `ws${i}`);
const shape = (jobs: { brandIds: string[]; window: number }[]) =>
  jobs.map((j) => [j.brandIds.length, j.window]);

describe('the workspace jobs of a run', () => {
  it('fills the first window after discovery with whole jobs, then starts the next window', () => {
    // 120 requests a window, 8 calls a workspace, 2 discovery calls: 118 left, so 5 + 5 + 4.
    const jobs = planWorkspaceJobs(ids(20), { per: 5, callsPerWorkspace: 8, requests: 120, callsBefore: 2 });
    expect(shape(jobs)).toEqual([
      [5, 0],
      [5, 0],
      [4, 0],
      [5, 1],
      [1, 1],
    ]);
    expect(jobs.flatMap((j) => j.brandIds)).toEqual(ids(20));
    // No window is asked for more calls than it has.
    for (const w of [0, 1]) {
      const calls = jobs.filter((j) => j.window === w).reduce((n, j) => n + 8 * j.brandIds.length, w ? 0 : 2);
      expect(calls).toBeLessThanOrEqual(120);
    }
  });

  it('starts a workspace bigger than a window at once, and the next one in the window its calls reach', () => {
    // 5 requests a window, 8 calls a workspace: calls 3-10 (windows 0-1), 11-18 (2-3), 19-26 (3-5).
    const jobs = planWorkspaceJobs(ids(3), { per: 1, callsPerWorkspace: 8, requests: 5, callsBefore: 2 });
    expect(shape(jobs)).toEqual([
      [1, 0],
      [1, 2],
      [1, 3],
    ]);
  });

  it('a load job finds each job workspaces, from its sizes or (jobs queued before) from one size', () => {
    const base = { brandIds: ids(7), workspacesPerJob: 3 } as WorkspacesDoneJobData;
    expect(jobWorkspaces({ ...base, jobSizes: [3, 1, 3] }, 1)).toEqual(['ws3']);
    expect(jobWorkspaces({ ...base, jobSizes: [3, 1, 3] }, 2)).toEqual(['ws4', 'ws5', 'ws6']);
    expect(jobWorkspaces(base, 1)).toEqual(['ws3', 'ws4', 'ws5']);
  });
});
