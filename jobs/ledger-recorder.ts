// The run ledger as a RunRecorder, for `run --once` with Redis configured: its runs show in
// `visync status` beside the workers' and move the account's last-success mark by the same rule.
import type { Manifest } from '../src/records/manifest.js';
import type { RunRecorder, StartedRun } from '../src/records/recorder.js';
import type { RunLedger } from './ledger.js';

export class LedgerRecorder implements RunRecorder {
  constructor(private readonly ledger: RunLedger) {}

  async started(r: StartedRun): Promise<void> {
    await this.ledger.create({ run_id: r.run_id, account: r.account, kind: r.kind, run_date: r.run_date });
    await this.ledger.update(r.run_id, {
      status: 'running',
      started_at: r.started_at,
      visibility_days: r.window.visibility_days,
      window_from: r.window.from,
      window_to: r.window.to,
      scope: r.scope,
    });
  }

  async recordedError(runId: string): Promise<string | undefined> {
    return (await this.ledger.get(runId))?.error;
  }

  async finished(m: Manifest): Promise<void> {
    // The manifest is the whole record: restore writes its counts, progress and outcome at once.
    await this.ledger.restore(m);
  }
}
