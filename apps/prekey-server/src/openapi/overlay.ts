import type { ErrorCode, RouteName, RouteTag } from "@svc/protocol";

/**
 * The prose of the OpenAPI document that a schema cannot carry: the introduction, what each tag
 * and error code means, and the behaviour of routes beyond their summary. Everything else is
 * generated from @svc/protocol's ROUTES.
 */

export const TITLE = "svc prekey directory, inbox relay and bridges";
export const SUMMARY =
  "Prekey distribution, key transparency, inbox relay, bridge delivery and peer transfer.";

export const INTRODUCTION = `Interface of the svc prekey server (\`@svc/prekey-server\`) and of the receiver-side transfer
routes that clients are generated from. This document is generated from the route table of
\`@svc/protocol\` (ROUTES) and its valibot schemas, the ones the server validates with. The wire format is unchanged from the 0.4.x line;
packages are released as 4.7.x (presence came in 4.7.0).

Encodings
- "base64" is RFC 4648 section 4 (standard alphabet) with padding; decoders are strict, a
  malformed value is a 400, never a crash. Public keys are 32 raw bytes, signatures 64.
- Addresses are NFKC-normalized, then must match \`^[a-zA-Z0-9][a-zA-Z0-9@:_.-]{0,255}$\`
  (case-sensitive; \`,\` is never allowed). An invalid address anywhere is 400
  \`SVC_INVALID_ADDRESS\`.
- 64-bit values that do not fit a JSON number (seq, lastSeqAcked) are decimal strings without
  leading zeros.

Signed bodies (keys and inbox routes): \`signature\` is Ed25519 over the UTF-8 bytes of the
RFC 8785 canonical JSON of the body without \`signature\`, plus \`"@method"\` (upper-case HTTP
method) and \`"@path"\` (the request path as sent, without query). Every number in a signed body
is a safe integer. Bodies may not contain members starting with \`@\`. \`signedAt\` outside
now +-300000 ms is stale: 401 on keys, bridge and push routes, 409 on inbox routes.
The canonical form and test vectors are in \`docs/protocol.md\`.

Errors: every error body is an ErrorResponse \`{name, code, message}\`; the codes are listed in
\`x-error-codes\` below and in the ErrorResponse schema. Requests to an undocumented route are
answered 404 with an ErrorResponse of code \`SVC_NOT_FOUND\` (see \`components/responses/UnknownRoute\`).
Optional features answer 404 \`SVC_FEATURE_DISABLED\` on all their routes when switched off:
key transparency (\`/v1/kt/*\`), the inbox (\`/v1/inbox/*\`, \`/v1/bridge/*\` and \`/v1/push/*\`) and
Web Push wake-ups (\`/v1/push/*\`, \`SVC_PUSH=off\`). The observer
routes answer 404 when \`SVC_OBSERVER_TOKEN\` is not set.

Rate-limit and quota rejections (429) carry \`Retry-After\` in whole seconds (>= 1).`;

export const TAGS: Record<RouteTag, string> = {
  operations: "Health, readiness, metrics and this description.",
  keys: "Identity keys, signed prekey, one-time prekeys and ML-KEM-1024 prekeys (X3DH and PQXDH prekey directory).",
  devices:
    "Device lists: the devices of an account (an address without its last :<device> part), each version signed by a device of the version before and committed in the key-transparency log.",
  kt: "Key-transparency log (only when configured; otherwise 404 SVC_FEATURE_DISABLED).",
  inbox: "Inbox relay of opaque ciphertext blobs (only when the inbox is enabled).",
  bridge:
    'Push and poll delivery of queued envelopes, and the presence feed. Authenticated by signed\nquery parameters: `signature` is Ed25519 by the key bound to `address` through inbox\nregistration, over the RFC 8785 canonical JSON of `{address, kind, since, signedAt}` with\n`since` (absent = 0) and `signedAt` as integers; presence signs\n`{address, kind: "presence", watched, signedAt}` where `watched` is the JSON array of the\nnormalized watched addresses sorted ascending.',
  push: 'Web Push wake-ups (RFC 8030, 8291, 8292; only when the inbox and `SVC_PUSH` are on). An address\nregisters the PushSubscription a browser or UnifiedPush distributor gives; after a deposit for it,\nwith no live SSE or WebSocket bridge, the server posts each subscription an encrypted\n`{"v":1,"pending":N}` (no sender, message or address), signed with the VAPID key of\n`GET /v1/push/vapid`, at most one per subscription per interval until the address fetches.\nSubscription changes are signed bodies by the address\'s bound inbox key, as the inbox\'s own.',
  observer: "Operator dashboard (only when `SVC_OBSERVER_TOKEN` is set; otherwise 404).",
  transfer:
    "Served by the RECEIVER-SIDE PEER, not by the prekey server. Documented here because clients\nare generated from the same interface. Error bodies are ErrorResponse; a 409 to a chunk carries\nthe lane's `lastSeqAcked` as well.",
};

export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  SVC_BAD_REQUEST:
    "Malformed request, body or query parameter (schema, JSON, base64, header mismatch).",
  SVC_INVALID_ADDRESS: "An address in the path, body or query does not match the address pattern.",
  SVC_INVALID_KEY:
    "A public key is not 32 bytes of strict base64, or an Ed25519 key the request binds (identitySigningKey, signingPublicKey, senderPublicKey) is a point of small order.",
  SVC_INVALID_SIGNED_PREKEY:
    "The signed prekey's signature does not verify with the identity signing key.",
  SVC_INVALID_KEM_PREKEY:
    "An ML-KEM prekey (kemLastResortPreKey or an entry of kemPreKeys) is not a 1568-byte key with a 64-byte signature, or its signature does not verify with the identity signing key.",
  SVC_TOO_MANY_WATCHED: "A presence subscription watches more than 64 addresses.",
  SVC_INVALID_PUSH_SUBSCRIPTION:
    "A push subscription's keys are not a 65-byte uncompressed P-256 point (p256dh) and a 16-byte secret (auth) in base64url, or its expirationTime has passed.",
  SVC_PUSH_ENDPOINT_REFUSED:
    "A push endpoint is refused: not a URL, not https, or its host is or resolves to a loopback, private or link-local address (the message says which; SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS=on lifts the last two).",
  SVC_BAD_SIGNATURE: "The request signature does not verify.",
  SVC_STALE_SIGNATURE:
    "signedAt is outside now +-5 minutes (401 on keys, bridge, push and transfer routes, 409 on inbox routes).",
  SVC_IDENTITY_MISMATCH: "A register names identity keys different from the stored ones.",
  SVC_WRONG_KEY: "Signed by a key other than the one bound to the address (or no key is bound).",
  SVC_UNAUTHORIZED:
    "Missing or invalid observer token; on the transfer routes, missing signature headers or a request not from the stream's sender.",
  SVC_NOT_REGISTERED: "The address has no registration (keys, or inbox for a deposit).",
  SVC_NOT_FOUND: "Unknown route.",
  SVC_STH_NOT_FOUND: "No signed tree head at the requested tree size.",
  SVC_NO_DEVICE_LIST:
    "The account has no device list, or not the version asked for (a 404 of the latest carries a key-transparency proof of absence).",
  SVC_BLOB_NOT_FOUND: "The inbox blob does not exist (already acknowledged or expired).",
  SVC_STREAM_NOT_FOUND: "The receiver holds no state for the transfer stream.",
  SVC_FEATURE_DISABLED:
    "The feature serving the route (key transparency, inbox, observer) is switched off.",
  SVC_INVALID_DEVICE_LIST:
    "The device list breaks a rule: its format, its signature, a signer not on the previous version, a device not registered or registered with other keys, too many devices, or an account other than the path's.",
  SVC_MSGID_MISMATCH: "msgId is not the lower-hex SHA-256 of the ciphertext bytes.",
  SVC_REPLAY: "A transfer chunk's seq is at or below the lane's lastSeqAcked.",
  SVC_OUT_OF_ORDER: "A transfer chunk's seq is above lastSeqAcked + 1.",
  SVC_INVALID_TRANSITION: "The transfer stream is not in a state that allows the request.",
  SVC_TOO_MANY_SUBSCRIPTIONS:
    "The address already keeps 8 push subscriptions (LIMITS.pushSubscriptionsPerAddress); renewing one of them (the same endpoint) is not counted twice.",
  SVC_DEVICE_LIST_CONFLICT:
    "The device list is not the version after the stored latest one (another device changed the list first, or a version was skipped); `currentVersion` is the stored latest version, 0 when the account has no list.",
  SVC_DEVICE_LIST_CHANGED:
    "A deposit batch names a device list version that is not the account's latest (or an account without a list), or deposits to an address of a named account that its latest list does not hold; nothing of the batch is stored, and `deviceLists` gives each named account's latest version (null: no list).",
  SVC_TOO_LARGE: "Body over the limit (maxBlobBytes, maxChunkBytes, request body limit).",
  SVC_RATE_LIMITED: "Rate limit exceeded; retry after Retry-After seconds.",
  SVC_QUOTA_EXCEEDED: "The recipient's inbox quota is full; retry after Retry-After seconds.",
  SVC_TOO_MANY_STREAMS:
    "The transfer sender has as many unfinished streams at the receiver as it may hold; Retry-After says when the first of them would expire.",
  SVC_INTERNAL: "Unexpected server failure (no details are disclosed).",
  SVC_UNAVAILABLE: "A backend (storage) is not reachable.",
  SVC_INSUFFICIENT_STORAGE:
    "A transfer start would reserve more bytes than the receiver sets aside for its sender or for all senders; Retry-After says when the first stream in the way would expire.",
};

export const ROUTE_DESCRIPTIONS: Partial<Record<RouteName, string>> = {
  metrics: `Includes \`svc_requests_total{route,status}\` (route pattern, never the raw path) and
counters for rate-limit rejections, key-transparency publishes, inbox put/fetch/ack,
bridge transports, inbox prune cycles and ML-KEM prekeys served
(\`svc_kem_prekeys_served_total{kind}\`), and the gauge \`svc_kem_prekeys_left\`.`,
  observerRedirect: `Redirects (301) to \`/svc-observer/\`, the dashboard page: a static HTML page without data; it asks for the observer token and reads
\`/svc-observer/api/state\` and \`/svc-observer/api/events\` with it. Served without a token
when the observer is enabled.`,
  observerEvents: `Authenticated by \`Authorization: Bearer <token>\` or, for EventSource clients that cannot
set headers, by the query parameter \`token\`. Event \`snapshot\` with \`data:\` an
ObserverSnapshot JSON object, sent on open and then periodically; a \`: ping\` comment
every 15 s keeps the connection open.`,
  keysRegister: `First registration is verified with the body's \`identitySigningKey\` (TOFU). Later
registrations must carry the stored identity keys and verify with the stored key, else
401 \`SVC_IDENTITY_MISMATCH\`; a later register replaces the signed prekey. One-time prekeys
are appended in request order (at most 100 per request, 1000 queued); an entry equal to
a queued one is skipped, the same keyId with another key is 400.
ML-KEM-1024 prekeys (PQXDH): \`kemLastResortPreKey\` sets or replaces the last-resort KEM key
(omitted: the stored one is kept); \`kemPreKeys\` are appended to the one-time KEM queue under
the same rules (100 per request, 1000 queued), and only beside a last-resort key (400
\`SVC_BAD_REQUEST\` otherwise). Each KEM entry's \`signature\` is Ed25519 by the identity signing
key over the 1568 raw key bytes; a wrong length or a signature that does not verify is 400
\`SVC_INVALID_KEM_PREKEY\`. The body limit of register and replenish is 256 KiB (413 beyond).
Checks in order: per-IP limit (429), size (413), JSON and schema (400), address and key
lengths (400), identity keys against the stored ones (401), body signature (401), freshness
(401), per-address limit (429), signed prekey (400), KEM prekey signatures (400), queue rules (400).`,
  keysReplenish: `Signed by the stored identity key. Appends one-time prekeys of either kind
(\`oneTimePreKeys\`, \`kemPreKeys\`, each optional, the rules of register) and with
\`kemLastResortPreKey\` sets or replaces the last-resort KEM key. Answers the queue lengths
afterwards: \`remaining\` (X25519) and \`kemRemaining\` (ML-KEM, the last-resort key not counted).`,
  keysCount: `Anonymous; consumes nothing. \`kemCount\` counts one-time ML-KEM prekeys only: the
last-resort key is not counted, and an address without KEM keys answers \`kemCount: 0\`.`,
  keysBundle: `Anonymous. Pops the oldest one-time prekey. When the address has a last-resort ML-KEM key
the bundle carries \`kemPreKey\`: the oldest one-time KEM prekey (\`lastResort: false\`, removed
together with the X25519 one, never served twice), else the last-resort key (\`lastResort:
true\`, never removed). An address without KEM keys gets no \`kemPreKey\` member. When key
transparency is active the bundle carries \`ktProof\` (an inclusion proof, with \`kemKeyHash\`
when the identity has a last-resort KEM key); the 404 of a deleted address carries a tombstone
proof and that of a never-registered address an absence proof.`,
  ktConsistency: `\`to\` defaults to the latest tree size. \`from = 0\` or \`from = to\` gives an empty proof.
\`from > to\`, \`to\` above the latest size, or a missing or malformed \`from\` is 400.`,
  ktLeaves: `Leaves \`start\` to \`end - 1\` (\`end\` defaults to the latest tree size), at most 1000 per
answer: \`leaves\` may hold fewer than asked for; ask again from \`start + leaves.length\`.
\`end\` above the latest size, \`start > end\`, or a missing or malformed \`start\` is 400.
Leaf encoding: docs/protocol.md (key transparency).`,
  ktVrf: `\`index\` is the first 32 bytes of the ECVRF-EDWARDS25519-SHA512-TAI output of the
normalized address under the log's VRF key, \`vrfProof\` its proof. Answers for any valid
address, registered or not, and consumes nothing; limited per IP at the bundle rate.`,
  ktCheckpoint: `A signed note (C2SP signed-note, tlog-checkpoint): the origin line, the tree size, the
base64 root hash and the extension line \`indexRoot <base64>\`, signed by the operator key
under the origin, followed by the cosignature/v1 lines the log's witnesses gave for that
size. Format: docs/protocol.md (witnessed checkpoints).`,
  inboxRegister: `Signed with the key being bound. Re-registering with the bound key is \`{ok: true}\` again.`,
  inboxUnregister: `Signed by the bound key; an address without registration is 401. Drops the address's
queued blobs and push subscriptions.`,
  inboxDeposit: `Signed with the per-request \`senderPublicKey\`. Checks in order: size (413, before
parsing; \`maxBlobBytes\`, default 1 MiB, counts decoded ciphertext bytes), schema (400),
recipient registered (404), signature (401), freshness (409), msgId (409), leading byte
0x02 (400), quota (429). \`expiresAt\` is clamped to [now + minTtl, now + maxTtl]
(defaults 60 s and 30 days). A repeat of (address, msgId) answers \`{idempotent: true}\`
and queues nothing, even when the quota is full; a repeat signed by another sender key
is 401.`,
  inboxDepositBatch: `At most 32 deposits, each \`{address, body}\` where \`body\` is exactly the body of
POST /v1/inbox/{address}, signed with its \`senderPublicKey\` for \`@method\` POST and
\`@path\` /v1/inbox/<address>. Each is judged and stored as that route would, and \`results\`
answers each in order: \`{status: 200, idempotent, expiresAt?}\` or \`{status, name, code,
message}\` with that route's status and code. The whole request fails (413, 400, 5xx) only when
the batch itself is too large or malformed, or the server cannot store; a sender then retries or
sends the deposits one by one (a repeat is idempotent). The body limit is one deposit's plus
8 KiB per further item: a batch carries at most one largest blob's worth of ciphertext.`,
  inboxFetch: `Signed by the bound key; an address without registration is 401.`,
  inboxAck: `Signed by the bound key; an address without registration is 401.`,
  pushVapid: `Anonymous. \`publicKey\` is the base64url (no padding) of the 65-byte uncompressed P-256 VAPID
public key: a browser's \`applicationServerKey\`. Every wake-up's \`Authorization: vapid t=<JWT>, k=<key>\` carries it.`,
  pushSubscribe: `Signed by the address's bound inbox key (an address without inbox registration is 401).
Checks in order: size (413), schema (400), address (400), signature (401), freshness (401),
keys and expiry (400 \`SVC_INVALID_PUSH_SUBSCRIPTION\`), endpoint (400 \`SVC_PUSH_ENDPOINT_REFUSED\`:
https only, and no host that is or resolves to a loopback, private or link-local address), count
(409 \`SVC_TOO_MANY_SUBSCRIPTIONS\` past 8). \`keys\` members are base64url with or without padding;
\`expirationTime\` (null or epoch ms) is taken from a browser's PushSubscription JSON. The same
endpoint again replaces its keys.`,
  pushUnsubscribe: `Signed by the address's bound inbox key. \`removed\` is false when the address had no
subscription with that endpoint (idempotent).`,
  bridgeStream: `Delivers unexpired, unacknowledged blobs with \`receivedAt > since\` oldest first, then live
ones, never missing or duplicating one across the hand-over. Each envelope is an SSE event
named \`envelope\` with \`id:\` = receivedAt and \`data:\` = BridgeEnvelope JSON
\`{from, bytes, receivedAt, msgId}\`. A valid \`Last-Event-ID\` header replaces \`since\`.
A \`: ping\` comment is sent every 15 s. Delivery never removes a blob; the inbox ack does.`,
  bridgePoll: `Returns at once (at most 100 envelopes) when any with \`receivedAt > since\` are pending;
otherwise holds the request up to \`timeoutMs\` and returns what arrived, possibly nothing.`,
  bridgeWs: `After the upgrade each envelope is one text frame holding the BridgeEnvelope JSON object
\`{from, bytes, receivedAt, msgId}\`. The server pings every 15 s and closes dead peers.
Authentication failures are answered before the upgrade as HTTP errors.`,
  bridgePresence: `On open one \`presence\` event per watched address, data \`{address, online, at}\`
(PresenceEvent); then, for watched addresses only, \`inbox.peer_connected\` and
\`inbox.peer_disconnected\` events, data \`{address, at}\` (PeerConnectionEvent), emitted when
the number of live SSE/WebSocket bridges of the address, across all server instances,
crosses 0<->1. Long-poll and presence subscriptions are not counted. \`: ping\` every 15 s.
More than 64 watched addresses is 400 \`SVC_TOO_MANY_WATCHED\`.`,
  transferChunk: `Body: \`0x11 || streamId(16) || u32be laneId || u64be seq || AEAD ciphertext\`; the header's
lane and seq must equal \`X-Svc-Lane-Id\` / \`X-Svc-Seq\` (else 400). The chunk must carry
exactly lastSeqAcked + 1: lower is 409 \`SVC_REPLAY\`, higher 409 \`SVC_OUT_OF_ORDER\`; a
stream that is not active is 409 \`SVC_INVALID_TRANSITION\`. 413 is returned before
decryption. Signed message (fields NUL-terminated): \`chunk\`, \`addr=\`, \`at=\`, \`sid=\`,
\`lane=\`, \`seq=\`, \`bodyHash=\` (lower-hex SHA-256 of the body).`,
  transferState: `Signed message (fields NUL-terminated): \`control\`, \`addr=\`, \`at=\`, \`sid=\`, \`method=GET\`,
\`path=/v1/transfer/<streamId>/state\`.`,
  transferControl: `The envelope is ratchet-authenticated, so no signature headers are needed. Plaintext is
JSON with \`type\` one of \`start\`, \`pause\`, \`resume\`, \`finish\`, \`abort\`. Transitions:
start -> active; active <-> paused; active or paused -> finished or aborted. An invalid
transition is 409 \`SVC_INVALID_TRANSITION\`; a control message for an unknown stream is
404 \`SVC_STREAM_NOT_FOUND\`. A start is refused before anything is written when its sender
holds as many unfinished streams as it may (429 \`SVC_TOO_MANY_STREAMS\`), when the bytes it
announces do not fit what is left of its sender's or every sender's reservation (507
\`SVC_INSUFFICIENT_STORAGE\`), or are more than the receiver takes in one stream or could
ever set aside (413 \`SVC_TOO_LARGE\`).`,
};
