import { isFresh, normalizeAddress } from "@svc/canonical";
import {
  decodeBase64Native,
  rawPath,
  readJsonBody,
  sha256Hex,
  signedBodyValidFor,
} from "@svc/http";
import type { DepositResult, InboxStore } from "@svc/inbox";
import {
  badRequest,
  type DepositAnswer,
  DepositBody,
  decodeSigningKey,
  depositBodyLimit,
  parseRequest,
  RATCHET_ENVELOPE_TYPE,
  ROUTES,
  routePattern,
  SvcError,
  staleSignature,
} from "@svc/protocol";
import type { Hono } from "hono";
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
    const { maxBlobBytes } = services.config.inbox;
    const started = performance.now();
    const body = await countedRefusal(services, () =>
      readJsonBody(c, depositBodyLimit(maxBlobBytes), depositLimitText(maxBlobBytes)),
    );
    services.metrics.depositStages.read.observe((performance.now() - started) / 1000);
    const request = { method: c.req.method, path: rawPath(c) };
    return c.json(await depositOne(services, store, pathAddress(c), request, body));
  });
}

/** A deposit's body judged and stored as D6 says, counted in the deposit metrics. */
export async function depositOne(
  services: Services,
  store: InboxStore,
  address: string,
  request: { method: string; path: string },
  body: Record<string, unknown>,
): Promise<DepositAnswer> {
  const result = await countedRefusal(services, () =>
    deposit(services, store, address, request, body),
  );
  if (result.idempotent) {
    services.metrics.inboxPut.inc({ outcome: "idempotent" });
    return { idempotent: true };
  }
  services.metrics.inboxPut.inc({ outcome: "stored" });
  return { idempotent: false, expiresAt: result.expiresAt };
}

async function countedRefusal<T>(services: Services, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    services.metrics.inboxPut.inc({ outcome: "rejected" });
    throw error;
  }
}

/** What a 413 names as the limit of a deposit body. */
export const depositLimitText = (maxBlobBytes: number) =>
  `a ciphertext of at most SVC_INBOX_MAX_BLOB_BYTES = ${maxBlobBytes} bytes in base64, and the other members`;

async function deposit(
  services: Services,
  store: InboxStore,
  address: string,
  signed: { method: string; path: string },
  body: Record<string, unknown>,
): Promise<DepositResult> {
  const { maxBlobBytes } = services.config.inbox;
  const started = performance.now();
  if (typeof body.ciphertext === "string" && decodedLength(body.ciphertext) > maxBlobBytes) {
    throw new SvcError(
      "SVC_TOO_LARGE",
      `ciphertext exceeds the ${maxBlobBytes}-byte limit (SVC_INBOX_MAX_BLOB_BYTES)`,
    );
  }

  const request = parseRequest(DepositBody, body);
  if (request.from !== undefined) requireAddressMember(request.from, "from");
  const ciphertext = decodeCiphertext(request.ciphertext);
  const senderPublicKey = decodeSigningKey(request.senderPublicKey, "senderPublicKey");

  // The registration is read under a lock inside the deposit transaction; only a request that
  // fails a later check pays an extra read, to answer 404 first when the recipient is unknown.
  const refusal = firstRefusal(services, signed, body, request, ciphertext, senderPublicKey);
  if (refusal !== undefined) {
    if ((await store.bindingKey(address)) === undefined) throw notRegistered();
    throw refusal;
  }
  const checked = performance.now();
  const result = await store.deposit({
    address,
    msgId: request.msgId,
    ciphertext,
    senderPublicKey,
    from: request.from === undefined ? undefined : normalizeAddress(request.from),
    expiresAt: request.expiresAt,
  });
  const stages = services.metrics.depositStages;
  stages.checks.observe((checked - started) / 1000);
  stages.store.observe((performance.now() - checked) / 1000);
  return result;
}

/** The first of the signature, freshness, msgId and leading-byte checks (D6 order) that fails. */
function firstRefusal(
  services: Services,
  signed: { method: string; path: string },
  body: Record<string, unknown>,
  request: { signedAt: number; msgId: string },
  ciphertext: Uint8Array,
  senderPublicKey: Uint8Array,
): SvcError | undefined {
  if (!signedBodyValidFor(services.verifier, signed, body, senderPublicKey)) {
    return new SvcError("SVC_BAD_SIGNATURE", "the signature does not verify");
  }
  if (!isFresh(request.signedAt, services.now())) {
    return staleSignature("inbox");
  }
  if (sha256Hex(ciphertext) !== request.msgId) {
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
    return decodeBase64Native(text);
  } catch {
    throw badRequest("ciphertext must be base64");
  }
}
