// Public surface of the upstream simulator: start it, script its faults and data changes, read its request log.

export { DEFAULT_LIMIT } from './accounts.js';
export { validateDataChange } from './changes.js';
export type { FaultRule } from './faults.js';
export { validateFaultRule } from './faults.js';
export { parseRequestLogNdjson, peakInWindow, requestLogNdjson } from './request-log.js';
export { startSimulator } from './server.js';
export type { Shape } from './shapes.js';
export { SHAPES } from './shapes.js';
export type { RequestLogEntry, Simulator, SimulatorOptions } from './types.js';
