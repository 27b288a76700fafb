import { decodeBase64, isFresh, normalizeAddress } from "@svc/canonical";
import { readJsonBody, signedBodyValid } from "@svc/http";
import type { DepositResult, InboxStore } from "@svc/inbox";
import {
  badRequest,
  DepositBody,
  decodeSigningKey,
  depositBodyLimit,
  msgIdOf,
  parseRequest,
  RATCHET_ENVELOPE_TYPE,
  ROUTES,
  routePattern,
  SvcError,
  staleSignature,
} from "@svc/protocol";
import type { Context, Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import { pathAddress, requireAddressMember } from "./recipient.js";

/**
 * POST /v1/inbox/{address}. D6 order of checks: size (413), schema (400), recipient registered
 * (404), signature with senderPublicKey (401), freshness (409), msgId (409), leading byte 0x02
 * (400), then in the store: repeat (200 idempotent, or 401 from another key) and quota (429).
 */
export function registerInboxDeposit(app: Hono<AppEnv>, services: Services, store: InboxStore) {
  app.on(ROUTES.inboxDeposit.method, routePattern(ROUTES.inboxDeposit), async (c) => {
    let result: DepositResult;
    try {
      result = await deposit(c, services, store);
    } catch (error) {
      services.metrics.inboxPut.inc({ outcome: "rejected" });
      throw error;
    }
    if (result.idempotent) {
      services.metrics.inboxPut.inc({ outcome: "idempotent" });
      return c.json({ idempotent: true });
    }
    services.metrics.inboxPut.inc({ outcome: "stored" });
    return c.json({ idempotent: false, expiresAt: result.expiresAt });
  });
}

async function deposit(c: Context, services: Services, store: InboxStore): Promise<DepositResult> {
  const { maxBlobBytes } = services.config.inbox;
  const origin = `a ciphertext of at most SVC_INBOX_MAX_BLOB_BYTES = ${maxBlobBytes} bytes in base64, and the other members`;
  const body = await readJsonBody(c, depositBodyLimit(maxBlobBytes), origin);
  if (typeof body.ciphertext === "string" && decodedLength(body.ciphertext) > maxBlobBytes) {
    throw new SvcError(
      "SVC_TOO_LARGE",
      `ciphertext exceeds the ${maxBlobBytes}-byte limit (SVC_INBOX_MAX_BLOB_BYTES)`,
    );
  }

  const address = pathAddress(c);
  const request = parseRequest(DepositBody, body);
  if (request.from !== undefined) requireAddressMember(request.from, "from");
  const ciphertext = decodeCiphertext(request.ciphertext);
  const senderPublicKey = decodeSigningKey(request.senderPublicKey, "senderPublicKey");

  // The registration is read under a lock inside the deposit transaction; only a request that
  // fails a later check pays an extra read, to answer 404 first when the recipient is unknown.
  const refusal = firstRefusal(c, services, body, request, ciphertext, senderPublicKey);
  if (refusal !== undefined) {
    if ((await store.bindingKey(address)) === undefined) throw notRegistered();
    throw refusal;
  }
  return store.deposit({
    address,
    msgId: request.msgId,
    ciphertext,
    senderPublicKey,
    from: request.from === undefined ? undefined : normalizeAddress(request.from),
    expiresAt: request.expiresAt,
  });
}

/** The first of the signature, freshness, msgId and leading-byte checks (D6 order) that fails. */
function firstRefusal(
  c: Context,
  services: Services,
  body: Record<string, unknown>,
  request: { signedAt: number; msgId: string },
  ciphertext: Uint8Array,
  senderPublicKey: Uint8Array,
): SvcError | undefined {
  if (!signedBodyValid(services.verifier, c, body, senderPublicKey)) {
    return new SvcError("SVC_BAD_SIGNATURE", "the signature does not verify");
  }
  if (!isFresh(request.signedAt, services.now())) {
    return staleSignature("inbox");
  }
  if (msgIdOf(ciphertext) !== request.msgId) {
    return new SvcError("SVC_MSGID_MISMATCH", "msgId is not the SHA-256 of the ciphertext");
  }
  if (ciphertext[0] !== RATCHET_ENVELOPE_TYPE) {
    return badRequest("ciphertext must be a ratchet envelope (leading byte 0x02)");
  }
  return undefined;
}

const notRegistered = () =>
  new SvcError("SVC_NOT_REGISTERED", "the recipient has no inbox registration");

/** Bytes a base64 text decodes to (judged before decoding, so a huge one is never decoded). */
function decodedLength(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function decodeCiphertext(text: string): Uint8Array {
  try {
    return decodeBase64(text);
  } catch {
    throw badRequest("ciphertext must be base64");
  }
}
