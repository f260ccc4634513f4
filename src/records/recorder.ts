// Where a run reports its start and end besides its manifest. `run --once` with Redis configured
// records its runs in the same ledger the workers use (jobs/ledger-recorder.ts), so `visync status`
// shows them and the nightly window counts them; without Redis the manifest alone is the record.
import type { Manifest } from './manifest.js';

export type StartedRun = Pick<
  Manifest,
  'run_id' | 'account' | 'kind' | 'run_date' | 'started_at' | 'window' | 'scope'
>;

export interface RunRecorder {
  started(run: StartedRun): Promise<void>;
  /** The run's terminal record: its manifest as written. */
  finished(manifest: Manifest): Promise<void>;
  /**
   * The error this record holds for a run (one whose manifest could not be written records why
   * here): the completion of that run keeps it as the cause.
   */
  recordedError?(runId: string): Promise<string | undefined>;
}
