// What a command that writes the store does first: claim it for this release (the store's marker,
// src/sinks/store-marker.ts). A store a newer release wrote ends the command with the marker's one
// line and exit 78, as a config error: another release or another store fixes it, no retry does.
import type { Config } from '../config/schema.js';
import type { ObjectStores } from '../sinks/create-store.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { claimStore as claimMarker, StoreTooNewError } from '../sinks/store-marker.js';
import { EXIT_CONFIG } from './exit-codes.js';
import { CliError } from './program-state.js';

/** Claims the stores of `accounts` (each distinct store once). */
export async function claimStores(
  stores: ObjectStores,
  config: Config,
  accounts: readonly string[],
): Promise<void> {
  const groups = await stores.grouped(config, accounts);
  for (const { store } of groups) await claimStore(store);
}

/**
 * Claims one store. Only a marker read refuses: a store that cannot be read or written now (S3
 * down, no permission) is left to fail where the command always reported it, each account with
 * its own line (a run's lease is its first write, before any API call: docs/faults.md).
 */
export async function claimStore(store: ObjectStore): Promise<void> {
  try {
    await claimMarker(store);
  } catch (err) {
    if (err instanceof StoreTooNewError) throw new CliError(err.message, EXIT_CONFIG);
  }
}
