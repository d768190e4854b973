// Accumulates generated source lines with two-space indentation.

export class CodeWriter {
  private readonly lines: string[] = [];
  private depth = 0;

  line(text = ''): this {
    this.lines.push(text === '' ? '' : '  '.repeat(this.depth) + text);
    return this;
  }

  /** Writes `head {`, the body one level deeper, then `}` (or `tail`). */
  block(head: string, body: () => void, tail = '}'): this {
    this.line(head === '' ? '{' : `${head} {`);
    return this.indented(body).line(tail);
  }

  /** Runs `body` one indentation level deeper. */
  indented(body: () => void): this {
    this.depth++;
    body();
    this.depth--;
    return this;
  }

  /** Writes `if (condition) {` then-body `} else {` else-body `}`. */
  ifElse(condition: string, then: () => void, otherwise: () => void): this {
    return this.block(`if (${condition})`, then, '} else {').indented(otherwise).line('}');
  }

  /** Appends lines produced elsewhere, re-indented to the current depth. */
  append(lines: readonly string[]): this {
    for (const text of lines) this.line(text);
    return this;
  }

  get lineCount(): number {
    return this.lines.length;
  }

  toLines(): string[] {
    return this.lines.slice();
  }

  toString(): string {
    return this.lines.join('\n') + '\n';
  }
}
