// Kafka version ranges as written in the message specs: "3", "0-7", "5+", "none".

export class VersionRange {
  static readonly NONE = new VersionRange(0, -1);

  /** `highest` is Infinity for open-ended ranges ("5+"). */
  constructor(readonly lowest: number, readonly highest: number) {}

  static parse(text: string): VersionRange {
    const spec = text.trim();
    if (spec === 'none') return VersionRange.NONE;
    let match = /^(\d+)\+$/.exec(spec);
    if (match) return new VersionRange(Number(match[1]), Infinity);
    match = /^(\d+)-(\d+)$/.exec(spec);
    if (match) return new VersionRange(Number(match[1]), Number(match[2]));
    if (/^\d+$/.test(spec)) return new VersionRange(Number(spec), Number(spec));
    throw new Error(`invalid version range "${text}"`);
  }

  get empty(): boolean {
    return this.lowest > this.highest;
  }

  intersect(other: VersionRange): VersionRange {
    const range = new VersionRange(Math.max(this.lowest, other.lowest), Math.min(this.highest, other.highest));
    return range.empty ? VersionRange.NONE : range;
  }

  contains(other: VersionRange): boolean {
    return other.empty || (this.lowest <= other.lowest && this.highest >= other.highest);
  }

  toString(): string {
    if (this.empty) return 'none';
    if (this.highest === Infinity) return `${this.lowest}+`;
    return this.lowest === this.highest ? `${this.lowest}` : `${this.lowest}-${this.highest}`;
  }

  /**
   * A TypeScript condition on `version` that is true exactly for this range, assuming the version
   * is already known to lie in `context`: 'true' / 'false' when the context decides it.
   */
  condition(context: VersionRange): string {
    const within = this.intersect(context);
    if (within.empty) return 'false';
    const parts: string[] = [];
    if (within.lowest > context.lowest) parts.push(`version >= ${within.lowest}`);
    if (within.highest < context.highest) parts.push(`version <= ${within.highest}`);
    return parts.length === 0 ? 'true' : parts.join(' && ');
  }
}
