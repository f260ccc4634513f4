// Public surface of the upstream simulator: start it, script its faults and data changes, read its request log.

export { DEFAULT_LIMIT, PLANS_WITH_API_ACCESS } from './accounts.js';
export type { DataChange, DataChangeKind } from './changes.js';
export { DATA_CHANGE_KINDS, validateDataChange } from './changes.js';
export type { FaultKind, FaultRule } from './faults.js';
export { FAULT_KINDS, validateFaultRule } from './faults.js';
export { parseRequestLogNdjson, peakInWindow, requestLogNdjson } from './request-log.js';
export { API_PREFIX } from './route.js';
export { startSimulator } from './server.js';
export type { Shape } from './shapes.js';
export { SHAPES } from './shapes.js';
export type {
  RequestLogEntry,
  SimAccountSpec,
  SimulatedAccount,
  Simulator,
  SimulatorOptions,
} from './types.js';
