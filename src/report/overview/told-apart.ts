// Two clients of one name, told apart where they are listed together (docs/reports.md, "Agency
// overview"): an agency runs a workspace per market or per brand line under one name, or the data
// names two brands alike. Each of a name's clients is followed by its domain where no other client
// of that name has the same one (`Acme (acme.example)`), else by a number, 1, 2, ... in the order
// of the workspace ids, so a list reads the same every time it is made. Never the workspace id:
// client pages show none. Pure.
import { compareText } from '../../history/figures.js';

export interface Named {
  id: string;
  /** The client's name; null: the data names none (all such clients count as one name). */
  name: string | null;
  domain: string | null;
}

/** What follows a client's name: its domain, or its number among the name's clients. */
export type Suffix = { domain: string } | { n: number };

/** One name, however it is written (`Acme`, ` acme `): the clients a reader would take for one. */
const nameKey = (name: string | null) =>
  name === null ? '' : `=${name.normalize('NFKC').trim().toLowerCase()}`;
const domainKey = (domain: string) => domain.trim().toLowerCase();

/** Per client id, what follows its name; a client whose name is its own is absent. */
export function suffixes(clients: readonly Named[]): Map<string, Suffix> {
  const byName = new Map<string, Named[]>();
  for (const c of clients) byName.set(nameKey(c.name), [...(byName.get(nameKey(c.name)) ?? []), c]);
  const out = new Map<string, Suffix>();
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    const domains = new Map<string, number>();
    for (const c of group)
      if (c.domain) domains.set(domainKey(c.domain), (domains.get(domainKey(c.domain)) ?? 0) + 1);
    const numbered: Named[] = [];
    for (const c of group)
      if (c.domain && domains.get(domainKey(c.domain)) === 1) out.set(c.id, { domain: c.domain });
      else numbered.push(c);
    numbered.sort((a, b) => compareText(a.id, b.id));
    for (const [i, c] of numbered.entries()) out.set(c.id, { n: i + 1 });
  }
  return out;
}

/** A name with what tells it apart, as plain text: `Acme (acme.example)`, `Bolt (2)`. */
export function toldApart(name: string, suffix: Suffix | undefined): string {
  return suffix === undefined ? name : `${name} (${'domain' in suffix ? suffix.domain : suffix.n})`;
}
