// The start of a worker (src/run/queued/worker.ts) while Redis may be unreachable: a stop ends it, and a
// failed or stopped start leaves no connection or BullMQ worker behind.
import { VisyncError } from '../src/util/errors.js';
import type { Worker } from './bullmq.js';
import { type Connections, dropConnections } from './worker-connections.js';

/** startWorker gave up waiting for Redis because its signal was aborted (a stop before the start). */
export class WorkerStartAborted extends VisyncError {
  get code() {
    return 'worker_start_aborted' as const;
  }

  constructor() {
    super('stopped before Redis could be reached');
    this.name = 'WorkerStartAborted';
  }
}

/** How long a stop waits for BullMQ to close what it holds (longer only when Redis is gone). */
export const CLOSE_MS = 2000;

/** Whether `work` settles within `ms`. The timer is cleared at once: an idle worker does not keep
 *  the process up for the whole shutdown grace. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      over,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The start's steps that wait on Redis: each is raced against `aborted`, and a failure (or an
 * abort) drops the connections and the workers started so far before it is rethrown.
 */
export class StartGuard {
  readonly aborted: Promise<never>;
  private abortStart = () => {};

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly conns: Connections,
    private readonly workers: Worker[],
  ) {
    // A stop while Redis is still unreachable ends the start. Requests queued for Redis are left
    // behind: ioredis does not fail them when a connection waiting to retry is dropped.
    this.aborted = new Promise<never>((_, reject) => {
      this.abortStart = () => reject(new WorkerStartAborted());
      if (signal?.aborted) this.abortStart();
      signal?.addEventListener('abort', this.abortStart, { once: true });
    });
    this.aborted.catch(() => {});
  }

  /** Runs `steps`, which race their waits with `aborted`; rethrows a failure once the start is undone. */
  async run<T>(steps: () => Promise<T>): Promise<T> {
    try {
      return await steps();
    } catch (err) {
      throw await this.undo(err);
    }
  }

  /** No later stop ends the start. */
  detach(): void {
    this.signal?.removeEventListener('abort', this.abortStart);
  }

  private async undo(err: unknown): Promise<unknown> {
    this.detach();
    dropConnections(this.conns);
    await settlesWithin(Promise.allSettled(this.workers.map((w) => w.close(true))), CLOSE_MS);
    return err;
  }
}
