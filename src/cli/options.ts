// Option parsers shared by commands, so `run --once` and `enqueue` accept and reject the same input.
import { InvalidArgumentError } from 'commander';
import { isWorkspaceEndpoint, WORKSPACE_ENDPOINTS, type WorkspaceEndpoint } from '../api/endpoints.js';

export function parseDays(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 365) {
    throw new InvalidArgumentError('expected a whole number of days from 1 to 365');
  }
  return n;
}

export function parseEndpoints(value: string): WorkspaceEndpoint[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.filter((n) => !isWorkspaceEndpoint(n));
  if (bad.length || names.length === 0) {
    throw new InvalidArgumentError(
      `unknown endpoint ${bad.join(', ')}; choose from ${WORKSPACE_ENDPOINTS.join(', ')}`,
    );
  }
  return names as WorkspaceEndpoint[];
}

/** For repeatable options (`--account a --account b`). */
export const collect = (value: string, prev: string[] = []) => [...prev, value];

/** The line for a --brand no complete run of the accounts has (`visync report`, `visync events`). */
export function unknownWorkspaceLine(brand: string, accounts: readonly string[]): string {
  return `visync: unknown workspace ${JSON.stringify(brand)}: no complete run of ${accounts.join(', ')} has it`;
}
