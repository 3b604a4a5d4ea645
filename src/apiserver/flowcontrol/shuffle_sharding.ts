/**
 * Shuffle sharding, like upstream's util/shufflesharding: a flow's hash picks
 * a hand of `handSize` distinct queues out of `deckSize`, the same hand every
 * time, so two flows rarely share all their queues.
 */

/** A flow's 53-bit hash of its schema name and distinguisher (two FNV-1a 32-bit halves). */
export function hashFlow(schema: string, distinguisher: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  const s = `${schema}\u0000${distinguisher}`;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/** Deals hands of distinct cards from a deck. */
export class Dealer {
  constructor(
    readonly deckSize: number,
    readonly handSize: number,
  ) {
    if (handSize < 1 || handSize > deckSize) throw new Error(`invalid hand size ${handSize} for deck ${deckSize}`);
  }

  /** The hand for `hash`, each card once, as mixed-radix digits of the hash without replacement. */
  deal(hash: number): number[] {
    const hand: number[] = [];
    let h = hash;
    for (let i = 0; i < this.handSize; i++) {
      const remaining = this.deckSize - i;
      let card = h % remaining;
      h = Math.floor(h / remaining);
      // The card-th of the cards not dealt yet.
      for (const taken of [...hand].sort((x, y) => x - y)) if (card >= taken) card++;
      hand.push(card);
    }
    return hand;
  }
}
