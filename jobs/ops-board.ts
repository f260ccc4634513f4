// Bull Board under /ui/ of the worker's endpoint. Loaded on the first /ui/ request, not at start:
// it and its UI packages cost a few hundred ms of CPU that a worker nobody browses never needs.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { Queue } from './bullmq.js';

export interface Board {
  /** Serves /ui and everything under it (the full path, as the endpoint received it). */
  app: Hono;
  /** The queues the board shows from now on. */
  setQueues(queues: Queue[]): void;
}

export function createBoard(o: { readOnly: boolean }): Board {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath('/ui');
  const board = createBullBoard({
    queues: [],
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'visync' } },
  });
  // Not strict: /ui and /ui/ are the same page (the board's entry route is '/').
  const app = new Hono({ strict: false });
  app.route('/ui', adapter.registerPlugin());
  // The endpoint's own error handler answers and logs, as for its other routes.
  app.onError((err) => {
    throw err;
  });
  return {
    app,
    setQueues(queues) {
      board.replaceQueues(queues.map((q) => new BullMQAdapter(q, { readOnlyMode: o.readOnly })));
    },
  };
}
