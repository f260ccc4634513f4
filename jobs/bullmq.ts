// BullMQ's classes, loaded with require. BullMQ is a CommonJS package: an ESM `import` of it makes
// Node parse every file it re-exports to find the named exports, about 200 ms of CPU at each
// worker start that require skips. It is the same module instance either way (Bull Board requires
// it too), so `instanceof` holds across both. Types come from `import type ... from 'bullmq'`.
import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';

const bullmq = createRequire(import.meta.url)('bullmq') as typeof BullMQ;

export const { DelayedError, FlowProducer, Queue, UnrecoverableError, Worker } = bullmq;
export type FlowProducer = BullMQ.FlowProducer;
export type Queue = BullMQ.Queue;
export type Worker = BullMQ.Worker;
