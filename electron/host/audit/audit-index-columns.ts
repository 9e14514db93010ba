// Growable typed columns for the audit index: a million entries cost bytes per entry, not an
// object per entry.

type TypedArray = Uint8Array | Uint32Array | Float64Array;

abstract class Column<T extends TypedArray> {
  protected data: T;
  length = 0;

  constructor(initial: T) {
    this.data = initial;
  }

  protected abstract make(size: number): T;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = this.make(Math.max(16, this.data.length * 2));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length] = value;
    this.length += 1;
  }

  at(index: number): number {
    return this.data[index] ?? 0;
  }

  /** The filled part, shared with the column (no copy). */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }

  /** Bytes held, spare capacity included. */
  get bytes(): number {
    return this.data.byteLength;
  }

  /** Gives back the spare capacity, once nothing more will be added. */
  trim(): void {
    if (this.data.length > this.length) this.data = this.data.slice(0, this.length) as T;
  }
}

export class U8Column extends Column<Uint8Array> {
  constructor(from?: Uint8Array) {
    super(from ?? new Uint8Array(16));
    this.length = from?.length ?? 0;
  }
  protected make(size: number): Uint8Array {
    return new Uint8Array(size);
  }
}

export class U32Column extends Column<Uint32Array> {
  constructor(from?: Uint32Array) {
    super(from ?? new Uint32Array(16));
    this.length = from?.length ?? 0;
  }
  protected make(size: number): Uint32Array {
    return new Uint32Array(size);
  }
}

export class F64Column extends Column<Float64Array> {
  constructor(from?: Float64Array) {
    super(from ?? new Float64Array(16));
    this.length = from?.length ?? 0;
  }
  protected make(size: number): Float64Array {
    return new Float64Array(size);
  }
}

/** Bytes appended at the end, for the text column. */
export class ByteColumn {
  #data: Buffer;
  length = 0;

  constructor(from?: Buffer) {
    this.#data = from ?? Buffer.alloc(64 * 1024);
    this.length = from?.length ?? 0;
  }

  append(text: string): void {
    const needed = this.length + Buffer.byteLength(text);
    if (needed > this.#data.length) {
      const bigger = Buffer.alloc(Math.max(needed, this.#data.length * 2));
      this.#data.copy(bigger, 0, 0, this.length);
      this.#data = bigger;
    }
    this.length += this.#data.write(text, this.length);
  }

  view(): Buffer {
    return this.#data.subarray(0, this.length);
  }

  get bytes(): number {
    return this.#data.length;
  }
}

/** Positions present in every list; each list ascending. */
export function intersectSorted(lists: readonly Uint32Array[]): Uint32Array {
  if (lists.length === 0) return new Uint32Array(0);
  const sorted = [...lists].sort((a, b) => a.length - b.length);
  let result = sorted[0] ?? new Uint32Array(0);
  for (const other of sorted.slice(1)) {
    const out = new Uint32Array(Math.min(result.length, other.length));
    let count = 0;
    let j = 0;
    for (const value of result) {
      while (j < other.length && (other[j] ?? 0) < value) j += 1;
      if (j === other.length) break;
      if (other[j] === value) {
        out[count] = value;
        count += 1;
      }
    }
    result = out.subarray(0, count);
  }
  return result;
}
