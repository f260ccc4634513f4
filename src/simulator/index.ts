// Public surface of the upstream simulator: start it, script its faults and data changes, read its request log.
export type { DataChange, DataChangeKind } from './changes.js';
export { DATA_CHANGE_KINDS, validateDataChange } from './changes.js';
export type { FaultKind, FaultRule } from './faults.js';
export { FAULT_KINDS, validateFaultRule } from './faults.js';
export { parseRequestLogNdjson, peakInWindow, requestLogNdjson } from './request-log.js';
export type {
  RequestLogEntry,
  SimAccountSpec,
  SimulatedAccount,
  Simulator,
  SimulatorOptions,
} from './server.js';
export { API_PREFIX, DEFAULT_LIMIT, PLANS_WITH_API_ACCESS, startSimulator } from './server.js';
