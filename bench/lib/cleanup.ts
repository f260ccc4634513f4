// What a benchmark must undo (child processes, temp dirs, Redis keys), newest first, also when a
// scenario throws or the user presses Ctrl-C, so a failed run leaves no redis-server or worker behind.
export type Undo = () => Promise<unknown> | unknown;

export class CleanupStack {
  readonly #undo: Undo[] = [];

  defer(undo: Undo): void {
    this.#undo.push(undo);
  }

  /** Runs `fn`; what it defers is undone when it ends (thrown or not), the rest stays. */
  async scope<T>(fn: (defer: (undo: Undo) => void) => Promise<T>): Promise<T> {
    const depth = this.#undo.length;
    try {
      return await fn((undo) => this.defer(undo));
    } finally {
      await this.#unwind(depth);
    }
  }

  async run(): Promise<void> {
    await this.#unwind(0);
  }

  /** SIGINT/SIGTERM: undo everything, exit 130. */
  onSignals(): void {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        console.error(`\n${sig}: cleaning up`);
        void this.run().finally(() => process.exit(130));
      });
    }
  }

  async #unwind(depth: number): Promise<void> {
    while (this.#undo.length > depth) {
      try {
        await this.#undo.pop()?.();
      } catch (err) {
        console.error(`cleanup: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
