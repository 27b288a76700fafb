/** Writing and reading the fixed-width fields of envelopes and serialized state. */

/** Appends fixed-width fields to a buffer of known final size. */
export class ByteWriter {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private offset = 0;

  constructor(length: number) {
    this.bytes = new Uint8Array(length);
    this.view = new DataView(this.bytes.buffer);
  }

  u8(value: number): this {
    this.view.setUint8(this.offset, value);
    this.offset += 1;
    return this;
  }

  u32(value: number): this {
    this.view.setUint32(this.offset, value);
    this.offset += 4;
    return this;
  }

  /** A safe integer as 8 big-endian bytes. */
  u64(value: number): this {
    this.view.setUint32(this.offset, Math.floor(value / 2 ** 32));
    this.view.setUint32(this.offset + 4, value % 2 ** 32);
    this.offset += 8;
    return this;
  }

  raw(value: Uint8Array): this {
    this.bytes.set(value, this.offset);
    this.offset += value.length;
    return this;
  }
}

/**
 * Reads fixed-width fields; `fail` builds the error thrown when the input is too short or a
 * value is out of range, so each format reports its own error code.
 */
export class ByteReader {
  private readonly view: DataView;
  private offset = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly fail: (reason: string) => Error,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  u8(): number {
    this.need(1);
    const value = this.view.getUint8(this.offset);
    this.offset += 1;
    return value;
  }

  u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.offset);
    this.offset += 4;
    return value;
  }

  /** 8 big-endian bytes that must hold a safe integer. */
  u64(): number {
    this.need(8);
    const high = this.view.getUint32(this.offset);
    const low = this.view.getUint32(this.offset + 4);
    if (high >= 2 ** 21) throw this.fail("64-bit field above 2^53 - 1");
    this.offset += 8;
    return high * 2 ** 32 + low;
  }

  /** A copy, so that a parsed value never aliases the caller's buffer. */
  raw(length: number): Uint8Array {
    this.need(length);
    const value = this.bytes.slice(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  rest(): Uint8Array {
    return this.raw(this.remaining);
  }

  end(): void {
    if (this.remaining !== 0) throw this.fail(`${this.remaining} trailing bytes`);
  }

  private need(length: number): void {
    if (this.remaining < length) throw this.fail("truncated");
  }
}
