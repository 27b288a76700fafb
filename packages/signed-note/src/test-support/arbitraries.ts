import fc from "fast-check";

/** A key name: 1-20 characters, some non-ASCII, without "+" or white space. */
export const keyName = fc.string({
  unit: fc.constantFrom(..."abcXYZ019-_./:@é∑"),
  minLength: 1,
  maxLength: 20,
});

/** Note text: lines of printable characters (some non-ASCII), each ending in a newline. */
export const noteText = fc
  .array(fc.string({ unit: fc.constantFrom(..."ab Z09+/=—é🔑"), maxLength: 30 }), {
    minLength: 1,
    maxLength: 5,
  })
  .map((lines) => lines.map((line) => `${line}\n`).join(""));

export const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
