import { CodedError } from "@svc/canonical";

export type VrfErrorCode =
  /** A proof that does not decode: not 80 bytes, Gamma not a point, or s not below the order. */
  | "VRF_INVALID_PROOF"
  /** encode_to_curve found no point in 256 tries (probability about 2^-256). */
  | "VRF_ENCODE_TO_CURVE_FAILED";

/** The only error this package throws for untrusted input; `vrfVerify` never throws it. */
export class VrfError extends CodedError<VrfErrorCode> {
  override readonly name = "VrfError";

  constructor(code: VrfErrorCode, message: string) {
    super(code, message);
  }
}
