// Who a scheduled report's mail goes to (docs/reports.md, "Every address on its own"): the
// recipients, then `reports.mail` cc and bcc. Each address is sent its own message and has its own
// send record (./records.ts), so what the server says of one address is that address's state alone.
import type { ReportMailConfig } from '../../config/schema.js';

/** `to`: a recipient; `cc`, `bcc`: a copy of the first recipient's mail. */
export type AddressRole = 'to' | 'cc' | 'bcc';

export interface Addressee {
  address: string;
  role: AddressRole;
}

/**
 * Every address once, in order: recipients, cc, bcc. An address already listed earlier (a cc that
 * is also a recipient, a bcc that is also a cc) is not listed again: it gets the report once. No
 * recipient, no copies: a copy is of a recipient's mail.
 */
export function addresseesOf(s: { recipients: readonly string[]; mail: ReportMailConfig }): Addressee[] {
  if (!s.recipients.length) return [];
  const out: Addressee[] = [];
  const seen = new Set<string>();
  const add = (address: string, role: AddressRole) => {
    if (seen.has(address.toLowerCase())) return;
    seen.add(address.toLowerCase());
    out.push({ address, role });
  };
  for (const a of s.recipients) add(a, 'to');
  for (const a of s.mail.cc ?? []) add(a, 'cc');
  for (const a of s.mail.bcc ?? []) add(a, 'bcc');
  return out;
}

/** The address as lines name it: `anna@x.example (cc)`; a recipient's without a suffix. */
export function addresseeName(a: { recipient: string; role?: AddressRole }): string {
  return a.role && a.role !== 'to' ? `${a.recipient} (${a.role})` : a.recipient;
}

/** `to: a, b; cc: c; bcc: d`: the report's addresses, for a line refusing one not among them. */
export function describeAddressees(list: readonly Addressee[]): string {
  const roles: AddressRole[] = ['to', 'cc', 'bcc'];
  return roles
    .map((role) => [role, list.filter((a) => a.role === role).map((a) => a.address)] as const)
    .filter(([, of]) => of.length)
    .map(([role, of]) => `${role}: ${of.join(', ')}`)
    .join('; ');
}
