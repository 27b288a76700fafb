import * as v from "valibot";

/** Members every signed body carries (SignedPayload). */
export const signedPayloadEntries = {
  signedAt: v.pipe(
    v.number("signedAt must be an integer"),
    v.safeInteger("signedAt must be an integer"),
  ),
  signature: v.pipe(
    v.string("signature must be a string"),
    v.length(88, "signature must be 64 bytes of base64"),
  ),
};

export const text = (field: string) => v.string(`${field} must be a string`);
export const base64Text = (field: string) => v.string(`${field} must be a base64 string`);

export const epochMs = (field: string) =>
  v.pipe(
    v.number(`${field} must be an integer`),
    v.safeInteger(`${field} must be an integer`),
    v.minValue(0, `${field} must not be negative`),
  );

export const count = (field: string) =>
  v.pipe(
    v.number(`${field} must be an integer`),
    v.safeInteger(`${field} must be an integer`),
    v.minValue(0, `${field} must not be negative`),
  );

export const OkResponse = v.object({ ok: v.boolean() });
