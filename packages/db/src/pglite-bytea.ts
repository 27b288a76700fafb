import { type PGliteOptions, types } from "@electric-sql/pglite";

/**
 * bytea through Buffer's native hex codec. PGlite's own codec builds one string per byte (and an
 * array of them) for every value each way: a 1 KiB blob cost ~60 KB of garbage per statement, and
 * the young-generation collections it caused were the tail of the bridges' delivery latency. The
 * text is the same `\x` hex form either way.
 */
export const pgliteByteaCodec: Pick<PGliteOptions, "serializers" | "parsers"> = {
  serializers: {
    [types.BYTEA]: (value: unknown) => {
      if (!(value instanceof Uint8Array)) throw new TypeError("bytea takes a Uint8Array");
      return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`;
    },
  },
  parsers: {
    [types.BYTEA]: (text: string) => {
      const bytes = Buffer.from(text.slice(2), "hex");
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
  },
};
