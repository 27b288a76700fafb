/** Test keys: a 32-byte array filled with `n`. */
export const key32 = (n: number): Uint8Array => new Uint8Array(32).fill(n);

export const identityChange = (address: string, n: number) => ({
  kind: "identity" as const,
  address,
  identitySigningKey: key32(n),
  identityDHKey: key32(n + 1),
});
