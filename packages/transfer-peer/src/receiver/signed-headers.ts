import { decodeBase64, normalizeAddress } from "@svc/canonical";
import { requireFresh } from "@svc/http";
import { parseSafeDecimal, SvcError } from "@svc/protocol";
import { TRANSFER_HEADERS } from "@svc/protocol/transfer";
import type { Context } from "hono";
import { clientFailure } from "./client-failure.js";
import type { ResolvedReceiverOptions } from "./options.js";

/** The three signature headers of a chunk or state request. */
export interface SignedHeaders {
  /** X-Svc-Sender-Address as sent: the signed message holds it so. */
  address: string;
  /** The same address normalized, to compare with a stream's sender. */
  sender: string;
  signedAt: number;
  /** X-Svc-Signature as sent; decoded when verified. */
  signature: string;
}

/** The signature headers: one missing is a 401, a malformed address or signedAt a 400. */
export function readSignedHeaders(c: Context): SignedHeaders {
  const address = c.req.header(TRANSFER_HEADERS.senderAddress);
  const signedAt = c.req.header(TRANSFER_HEADERS.signedAt);
  const signature = c.req.header(TRANSFER_HEADERS.signature);
  if (address === undefined || signedAt === undefined || signature === undefined) {
    throw new SvcError(
      "SVC_UNAUTHORIZED",
      `${TRANSFER_HEADERS.senderAddress}, ${TRANSFER_HEADERS.signedAt} and ${TRANSFER_HEADERS.signature} are required`,
    );
  }
  return {
    address,
    sender: normalizeAddress(address),
    signedAt: parseSafeDecimal(signedAt, TRANSFER_HEADERS.signedAt),
    signature,
  };
}

/**
 * Only the stream's sender may ask about it: the headers must name it (401), be fresh (401
 * SVC_STALE_SIGNATURE). Judged before the body is read.
 */
export function requireSender(
  options: ResolvedReceiverOptions,
  headers: SignedHeaders,
  sender: string,
): void {
  if (headers.sender !== sender) {
    throw new SvcError("SVC_UNAUTHORIZED", "the request is not from the stream's sender");
  }
  requireFresh(headers.signedAt, options.now(), "other");
}

/**
 * 401 SVC_BAD_SIGNATURE unless the signature is the sender's Ed25519 over `message`, verified
 * with the signing key the directory has for the sender (kept by the client once fetched).
 */
export async function requireSignature(
  options: ResolvedReceiverOptions,
  headers: SignedHeaders,
  message: Uint8Array,
): Promise<void> {
  let signingKey: Uint8Array;
  try {
    signingKey = (await options.client.peerIdentity(headers.sender)).identitySigningKey;
  } catch (error) {
    throw clientFailure(error, (reason) => new SvcError("SVC_UNAUTHORIZED", reason));
  }
  let signature: Uint8Array | undefined;
  try {
    signature = decodeBase64(headers.signature, 64);
  } catch {
    signature = undefined;
  }
  if (!signature || !options.verifier.verify(signature, message, signingKey)) {
    throw new SvcError("SVC_BAD_SIGNATURE", "the signature does not verify");
  }
}
