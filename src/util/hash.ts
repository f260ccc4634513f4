import { hash } from 'node:crypto';

/** Hex SHA-256; the one-shot `hash` skips the Hash object (a third less CPU for a 3 KB body). */
export function sha256Hex(data: Uint8Array | string): string {
  return hash('sha256', data, 'hex');
}
