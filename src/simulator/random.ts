// Seeded, dependency-free randomness for the simulator. Every value the simulator serves is
// derived from a hash of its coordinates (seed, account, workspace, endpoint, date, ...), so the
// same request answers the same bytes on every call and on every machine, without storing data.

/** cyrb53: a fast 53-bit string hash with good spread; not cryptographic, only for seeding. */
function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** mulberry32 PRNG with helpers; cheap to create, so callers make one per coordinate tuple. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Float in [min, max) rounded to `decimals` places. */
  float(min: number, max: number, decimals = 1): number {
    return round(min + this.next() * (max - min), decimals);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('Rng.pick on an empty list');
    return item;
  }

  /** `count` distinct items, in the order they appear in `items` (stable output for stable input). */
  sample<T>(items: readonly T[], count: number): T[] {
    const indexes = items.map((_, i) => i);
    for (let i = indexes.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const a = indexes[i] as number;
      indexes[i] = indexes[j] as number;
      indexes[j] = a;
    }
    return indexes
      .slice(0, Math.min(count, items.length))
      .sort((a, b) => a - b)
      .map((i) => items[i] as T);
  }

  /** `length` lower-case hex characters. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) {
      out += Math.floor(this.next() * 4294967296)
        .toString(16)
        .padStart(8, '0');
    }
    return out.slice(0, length);
  }
}

/**
 * An Rng for one coordinate tuple. JSON-encoding the parts keeps tuples unambiguous even when a
 * workspace id contains separators (e.g. ['a/b', 'c'] and ['a', 'b/c'] hash differently).
 */
export function rngFor(seed: number, ...parts: (string | number)[]): Rng {
  const h = hash53(JSON.stringify([seed, ...parts]));
  // Fold the high bits in so the 32-bit PRNG state uses all 53 bits of the hash.
  return new Rng((h ^ Math.floor(h / 4294967296)) >>> 0);
}

export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
