import { decodeBase64, ed25519Sign, encodeBase64, SerialQueue } from "@svc/canonical";
import {
  accountOf,
  type DeviceFrame,
  type DeviceList,
  type DeviceListVersion,
  decodeBundle,
  decodeDeviceFrame,
  deviceListToJson,
  encodeDeviceFrame,
  firstDeviceList,
  type IdentityKeys,
  isDeviceFrame,
  LIMITS,
  msgIdOf,
  type PreKeyBundleKeys,
  type PushSubscriptionWire,
  parseLinkCode,
  SvcError,
  signDeviceList,
} from "@svc/protocol";
import { createIdentity, createSignedPreKey, initiateSession, RatchetError } from "@svc/ratchet";
import { type ApiAnswer, createApi, type SvcApi } from "./api.js";
import {
  acceptedBatch,
  batchRefused,
  changedAccounts,
  listsChanged,
  versionsRefused,
} from "./deposits.js";
import { readMessage } from "./device-frames.js";
import { invalid, knownOf, nextListFields, readDeviceList, remember } from "./device-lists.js";
import { refuseDowngrade, rememberPostQuantum } from "./downgrade.js";
import { ClientError } from "./errors.js";
import { type Delivery, deliveriesOf } from "./fan-out.js";
import {
  decryptFrom,
  type InboundContext,
  type InboundMessage,
  type ReceivedMessage,
} from "./inbound.js";
import { KtCheck, type KtEvidence } from "./kt.js";
import {
  answerLinkRequests,
  type LinkedDevice,
  type LinkHost,
  type LinkOptions,
  sendLinkRequest,
} from "./linking.js";
import { inboundOf, Mailbox, type Reading } from "./mailbox.js";
import {
  addressArgument,
  type ClientOptions,
  type ResolvedOptions,
  resolveOptions,
} from "./options.js";
import { addKemPreKeys, addOneTimePreKeys, kemEntry, kemLastResortPreKeyOf } from "./prekeys.js";
import { pushEndpointArgument, pushSubscriptionArgument } from "./push.js";
import { encryptOnActive, sessionOf, withNewSession } from "./sessions.js";
import {
  currentSignedPreKey,
  dictionary,
  identityOf,
  type KnownDeviceList,
  type KtPin,
  parseState,
  STATE_VERSION,
  type StoredBundle,
  type StoredState,
  storedIdentity,
} from "./state.js";
import { type SubscribeOptions, type Subscription, subscribe } from "./subscribe.js";
import { isTransient } from "./transient.js";
import {
  identityChanged,
  recordChange,
  refuseIfChanged,
  type SafetyNumberReport,
  safetyNumberReport,
  sameKeys,
  storedBundle,
  type TrustResult,
  takeUnusedBundle,
  trustPeer,
} from "./trust.js";

/** Asked of the server on deposit; it clamps the expiry to its own limits (30 days by default). */
export const DEPOSIT_TTL_MS = 30 * 24 * 3600_000;

/** The own identity, public keys in base64. */
export interface IdentityInfo {
  address: string;
  identitySigningKey: string;
  identityDHKey: string;
}

export interface KeysStatus {
  address: string;
  oneTimePreKeysOnServer: number;
  oneTimePreKeysLocal: number;
  signedPreKeyId: number;
  /** One-time ML-KEM prekeys left on the server (the last-resort key not counted). */
  kemPreKeysOnServer: number;
  /** One-time ML-KEM prekeys whose seeds are held here. */
  kemPreKeysLocal: number;
}

/** What `send` deposited. */
export interface SendResult {
  /** The envelope's (on a send to an account, the first device's). */
  msgId: string;
  /**
   * On a send to an account with a device list: each envelope deposited, to a device of it or
   * (`copy`) to another device of the own account.
   */
  deliveries?: Array<{ address: string; msgId: string; copy: boolean }>;
}

/** An account's verified device list, as `deviceList` gives it. */
export interface DeviceListInfo {
  account: string;
  version: number;
  devices: Array<{ address: string; identitySigningKey: string }>;
}

/** The session with a peer, as `session()` describes it. */
export interface SessionInfo {
  address: string;
  /** True when the active session was set up with PQXDH (an ML-KEM-1024 prekey), not X3DH. */
  postQuantum: boolean;
}

export interface ReceiveOptions {
  /** Each message, in order, before it is acked. */
  onMessage?: (message: ReceivedMessage) => void | Promise<void>;
  /** Stops the drain between pages; what was handed over stays acked. */
  signal?: AbortSignal;
}

export interface KtVerification {
  treeSize: number;
  leafIndex: number;
  identitySigningKey: string;
  identityDHKey: string;
}

/** How long a lookup that found no device list for an address stands. */
const NO_LIST_REMEMBERED_MS = 60_000;
/**
 * How long a list read in this session is sent on without reading it again, the server checking
 * its version instead: past that, a send reads it again, so that a server that stops reporting
 * changes (one hiding a removal) is caught by the list's key-transparency proof within this time.
 */
const LIST_REMEMBERED_MS = 2 * 60_000;
/** Rounds of a send to an account whose lists change under it before it gives up. */
const LIST_CHANGE_ROUNDS = 3;

/** A send to an account: its envelopes' devices and the list versions they were chosen from. */
interface FanOut {
  deliveries: Delivery[];
  deviceLists: DeviceListVersion[];
  /** Whether every list named was read in this send (not only remembered). */
  read: boolean;
}

function sendResult(deliveries: Delivery[], msgIds: string[]): SendResult {
  const sent = deliveries.map((delivery, i) => ({
    address: delivery.address,
    msgId: msgIds[i] as string,
    copy: delivery.copy,
  }));
  return {
    msgId: sent.find((entry) => !entry.copy)?.msgId ?? sent[0]?.msgId ?? "",
    deliveries: sent,
  };
}

/**
 * An end-to-end encrypted messaging client for one identity: X3DH and Double Ratchet sessions over
 * the prekey directory (bundles checked by key transparency) and the inbox relay and its bridges.
 * Its state lives in a KeyStore; every change is saved before anything leaves the client.
 */
export class SvcClient {
  /** Typed calls for every route, signed with keys the caller gives. */
  readonly api: SvcApi;
  readonly #options: ResolvedOptions;
  #state: StoredState | undefined;
  /** The KT pin before there is a state to keep it in. */
  #ktPin: KtPin | null = null;
  readonly #serial = new SerialQueue();
  #saves: Promise<void> = Promise.resolve();
  #queuedSave: Promise<void> | undefined;
  readonly #kt: KtCheck;
  readonly #mailbox: Mailbox;
  readonly #subscriptions = new Set<Subscription>();
  /** Addresses whose list lookup found none, until when (ms): sent to as devices meanwhile. */
  readonly #noListUntil = new Map<string, number>();
  /** False once the server answered that it has no batch deposit route. */
  #batchDeposits = true;
  /**
   * Whether the server checks the device list versions a batch names: true once it took them,
   * false once it refused the member (it predates the check); unknown before the first batch.
   */
  #versionChecks: boolean | undefined;
  /** When each account's list was last read and verified in this session (ms). */
  readonly #listsReadAt = new Map<string, number>();
  #closed = false;

  private constructor(options: ResolvedOptions, state: StoredState | undefined) {
    this.#options = options;
    this.#state = state;
    this.api = createApi(options);
    this.#kt = new KtCheck({
      mode: options.kt,
      api: this.api,
      server: options.server,
      fetch: options.fetch,
      now: options.now,
      witnessPolicy: options.witnessPolicy,
      pin: {
        get: () => (this.#state ? this.#state.kt : this.#ktPin),
        set: async (pin) => {
          if (this.#state === undefined) this.#ktPin = pin;
          else {
            this.#state.kt = pin;
            await this.#persist();
          }
        },
      },
    });
    this.#mailbox = new Mailbox({
      api: this.api,
      change: (task) => this.#change(task),
      state: () => this.#requireState(),
      persist: () => this.#persist(),
      inbound: () => this.#inbound(),
      report: (error) => this.#report(error),
      signingKey: () => this.#signingKey(),
      prekeysUsed: () => this.#afterBatch(),
      read: (message) => this.#read(message),
    });
  }

  /** Loads the store's state (if any); no request is sent. */
  static async open(options: ClientOptions): Promise<SvcClient> {
    const resolved = resolveOptions(options);
    const loaded = await resolved.store.load();
    return new SvcClient(resolved, loaded === undefined ? undefined : parseState(loaded));
  }

  /**
   * Creates the identity, a signed prekey and `prekeys.target` one-time prekeys, saves them, then
   * registers keys and inbox. A store whose registration did not finish is registered again.
   */
  init(address: string): Promise<IdentityInfo> {
    const normalized = addressArgument(address, "address");
    return this.#change(async () => {
      this.#checkOpen();
      let state = this.#state;
      if (state !== undefined && (state.registered || state.address !== normalized)) {
        throw new ClientError(
          "IDENTITY_EXISTS",
          `the store holds the identity of ${state.address}`,
        );
      }
      // kt "require" refuses a server without KT before anything is registered there.
      if (this.#options.kt !== "off") await this.#kt.verifier();
      if (state === undefined) {
        state = this.#newState(normalized);
        this.#state = state;
        await this.#persist();
      }
      await this.#register(state);
      state.registered = true;
      await this.#persist();
      return identityInfo(state);
    }, true);
  }

  async whoami(): Promise<IdentityInfo> {
    return identityInfo(this.#requireState());
  }

  /**
   * Encrypts `plaintext` for `to` and deposits it in `to`'s inbox. The first message to a peer
   * fetches its bundle (KT-verified) and starts a session; the session state is saved before the
   * deposit is sent.
   */
  async send(to: string, plaintext: Uint8Array): Promise<SendResult> {
    const peer = addressArgument(to, "to");
    if (!(plaintext instanceof Uint8Array)) throw new TypeError("plaintext must be a Uint8Array");
    let plan = await this.#change(() => this.#fanOut(peer, plaintext));
    if (plan === undefined)
      return { msgId: await this.#deposit(peer, await this.#seal(peer, plaintext)) };
    // Envelopes sealed in an earlier round are sent again as they are: a device still listed
    // gets the same msgId, never a second message.
    const sealed = new Map<string, Uint8Array>();
    for (let round = 1; ; round++) {
      const { deliveries } = plan;
      const unsealed = deliveries.filter((delivery) => !sealed.has(delivery.address));
      const envelopes = await this.#sealAll(unsealed);
      for (const [i, delivery] of unsealed.entries()) {
        sealed.set(delivery.address, envelopes[i] as Uint8Array);
      }
      let reread: string[];
      try {
        const msgIds = await this.#depositAll(
          deliveries.map(({ address }) => ({
            address,
            envelope: sealed.get(address) as Uint8Array,
          })),
          plan,
        );
        if (msgIds !== undefined) return sendResult(deliveries, msgIds);
        reread = plan.deviceLists.map((entry) => entry.account);
      } catch (error) {
        if (!listsChanged(error)) throw error;
        this.#versionChecks = true;
        const changed = changedAccounts(plan.deviceLists, error);
        // None changed by the server's word: the version read is not the one it checks against
        // (a version stored but not yet proven in the log). Each is read again.
        reread = changed.length > 0 ? changed : plan.deviceLists.map((entry) => entry.account);
        if (round >= LIST_CHANGE_ROUNDS) {
          throw new ClientError(
            "DEVICE_LIST_CONFLICT",
            `the device lists of ${reread.join(" and ")} changed during the send ${round} times: try again`,
            { cause: error },
          );
        }
      }
      const again = await this.#change(() => this.#fanOut(peer, plaintext, reread));
      if (again === undefined) throw invalid(peer, "the server no longer serves its list");
      plan = again;
    }
  }

  /** This device's account: its address without the `:<device>` part; ClientError NO_ACCOUNT without one. */
  async ownAccount(): Promise<string> {
    return this.#ownAccount();
  }

  /**
   * This device's account's verified list, started (version 1, this device alone, signed by it)
   * when the account has none: from then on a send to the account reaches this device. Linking
   * starts it too. ClientError NO_ACCOUNT for an address without `:<device>`.
   */
  startDeviceList(): Promise<DeviceListInfo> {
    return this.#change(async () => {
      const account = this.#ownAccount();
      return listInfo(account, (await this.#listOrNone(account)) ?? (await this.#startList()));
    });
  }

  /**
   * `account`'s device list, verified (signature chain from the version remembered, KT proof
   * unless KT is off) and remembered; undefined when it has none. ClientError DEVICE_LIST_INVALID
   * when it does not verify.
   */
  deviceList(account: string): Promise<DeviceListInfo | undefined> {
    const name = addressArgument(account, "account");
    return this.#change(async () => {
      const list = await this.#readList(name);
      return list && listInfo(name, list);
    });
  }

  /**
   * The 0x02 envelope `send` would deposit, for a channel other than the inbox (a transfer
   * peer's control route): the session advances and is saved before it is returned.
   */
  seal(to: string, plaintext: Uint8Array): Promise<Uint8Array> {
    return this.#seal(addressArgument(to, "to"), plaintext);
  }

  /**
   * Decrypts a 0x02 envelope that `from` sent outside the inbox, once: the session advances and is
   * saved before the plaintext is returned, so the same envelope again is refused as a replay.
   * Refusals are ClientError DECRYPT_FAILED, or SENDER_MISMATCH for a first message whose sender
   * keys are not the directory's for `from`.
   */
  open(from: string, envelope: Uint8Array): Promise<Uint8Array> {
    const sender = addressArgument(from, "from");
    if (!(envelope instanceof Uint8Array)) throw new TypeError("envelope must be a Uint8Array");
    return this.#change(async () => {
      const state = this.#requireState();
      const result = await decryptFrom(this.#inbound(), state, sender, envelope);
      if (!result.ok) {
        throw new ClientError(result.code, `envelope from ${sender}: ${result.reason}`, {
          ...(result.identityChange ? { identityChange: result.identityChange } : {}),
        });
      }
      await this.#persist();
      return result.plaintext;
    });
  }

  /**
   * The identity keys the directory has for `address`, KT-verified unless KT is off. Fetched once
   * and kept in the state, so checking a peer's signatures again and again costs it no one-time
   * prekey.
   */
  peerIdentity(address: string): Promise<IdentityKeys> {
    const peer = addressArgument(address, "address");
    return this.#change(async () => {
      const known = this.#requireState().peers[peer];
      const keys = await this.#inbound().peerIdentity(peer);
      if (known === undefined) await this.#persist();
      return keys;
    });
  }

  /** Ed25519 over `message` with this identity's signing key (a transfer request's signature). */
  async sign(message: Uint8Array): Promise<Uint8Array> {
    if (!(message instanceof Uint8Array)) throw new TypeError("message must be a Uint8Array");
    return ed25519Sign(message, this.#signingKey());
  }

  /**
   * Drains the inbox: every queued envelope decrypted once, saved, and returned in receivedAt
   * order (with any message a failed handler left behind); acked once handed over, which is
   * after `onMessage` resolved when it is given (a message it throws on stays unacked).
   */
  async receive(options: ReceiveOptions = {}): Promise<ReceivedMessage[]> {
    this.#requireState();
    const messages: ReceivedMessage[] = [];
    await this.#mailbox.drain(async (message) => {
      await options.onMessage?.(message);
      messages.push(message);
    }, options.signal);
    this.#afterBatch();
    return messages;
  }

  /** Live delivery: see {@link SubscribeOptions}; `onMessage` errors leave the message unacked. */
  subscribe(
    onMessage: (message: ReceivedMessage) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): Subscription {
    this.#requireState();
    const subscription = subscribe(
      {
        api: this.api,
        mailbox: this.#mailbox,
        options: this.#options,
        state: () => this.#requireState(),
        signingKey: () => this.#signingKey(),
        afterBatch: () => this.#afterBatch(),
      },
      onMessage,
      options,
    );
    this.#subscriptions.add(subscription);
    subscription.closed.then(
      () => this.#subscriptions.delete(subscription),
      () => this.#subscriptions.delete(subscription),
    );
    return subscription;
  }

  /**
   * The server's VAPID public key (base64url of the 65-byte uncompressed P-256 point): the
   * `applicationServerKey` a browser subscribes with. SvcError SVC_FEATURE_DISABLED (404) when
   * the server sends no wake-ups.
   */
  async pushVapidKey(): Promise<string> {
    this.#checkOpen();
    return (await this.api.pushVapid()).publicKey;
  }

  /**
   * Asks the server to wake this address through `subscription` (a browser's
   * PushSubscription.toJSON(), or a UnifiedPush distributor's endpoint and keys) whenever blobs
   * arrive while no bridge is open; signed with the inbox key. The same endpoint again renews its
   * keys. A TypeError when its shape is not the protocol's, before anything is sent; the server's
   * refusals are SvcError (SVC_INVALID_PUSH_SUBSCRIPTION, SVC_PUSH_ENDPOINT_REFUSED,
   * SVC_TOO_MANY_SUBSCRIPTIONS).
   */
  async subscribePush(subscription: PushSubscriptionWire): Promise<void> {
    const checked = pushSubscriptionArgument(subscription);
    const state = this.#requireState();
    await this.api.pushSubscribe(
      { address: state.address, subscription: checked },
      this.#signingKey(),
    );
  }

  /** Stops the wake-ups through `endpoint`; `removed` is false when there was no such subscription. */
  async unsubscribePush(endpoint: string): Promise<{ removed: boolean }> {
    const checked = pushEndpointArgument(endpoint);
    const state = this.#requireState();
    const { removed } = await this.api.pushUnsubscribe(
      { address: state.address, endpoint: checked },
      this.#signingKey(),
    );
    return { removed };
  }

  async keysStatus(): Promise<KeysStatus> {
    const state = this.#requireState();
    const { count, kemCount } = await this.api.keysCount(state.address);
    return {
      address: state.address,
      oneTimePreKeysOnServer: count,
      oneTimePreKeysLocal: Object.keys(state.oneTimePreKeys).length,
      signedPreKeyId: currentSignedPreKey(state).keyId,
      kemPreKeysOnServer: kemCount ?? 0,
      kemPreKeysLocal: Object.keys(state.kemPreKeys ?? {}).length,
    };
  }

  /**
   * The active session with `address`: whether PQXDH set it up. Nothing is fetched; ClientError
   * NO_SESSION when no message was sent to or received from `address` yet.
   */
  async session(address: string): Promise<SessionInfo> {
    const peer = addressArgument(address, "address");
    const active = this.#requireState().sessions[peer]?.[0];
    if (active === undefined) {
      throw new ClientError(
        "NO_SESSION",
        `there is no session with ${peer} yet: the first message sent to or received from ${peer} sets one up`,
      );
    }
    return { address: peer, postQuantum: sessionOf(active).postQuantum };
  }

  /**
   * Tops the server's one-time prekeys (EC and ML-KEM alike) up to `prekeys.target`, and uploads
   * a last-resort KEM prekey if the server was never given one; the number of EC one-time
   * prekeys uploaded.
   */
  replenishPrekeys(): Promise<number> {
    return this.#change(() => this.#replenish(true));
  }

  /**
   * Fetches `address`'s bundle (which costs it a one-time prekey) and verifies its ktProof
   * whatever the kt mode; a server without KT is KT_UNAVAILABLE, a lying one KT_VERIFICATION_FAILED.
   */
  async verifyKt(address: string): Promise<KtVerification> {
    const peer = addressArgument(address, "address");
    this.#checkOpen();
    // Through a change: the proof may move the KT pin, which is saved (kept in memory while the
    // store holds no identity).
    const { bundle, evidence } = await this.#change(() =>
      this.#kt.fetchBundle(peer, { force: true }),
    );
    return {
      ...(evidence as KtEvidence),
      identitySigningKey: bundle.identitySigningKey,
      identityDHKey: bundle.identityDHKey,
    };
  }

  /**
   * Trusts the identity keys the directory now has for `address` (KT-verified), after send was
   * refused with IDENTITY_CHANGED, or to learn a new peer's keys before the first message (to
   * compare safety numbers). See trustPeer in trust.ts for what it costs and keeps.
   */
  trust(address: string): Promise<TrustResult> {
    const peer = addressArgument(address, "address");
    return this.#change(async () => {
      const state = this.#requireState();
      const result = await trustPeer(state, peer, async () =>
        storedBundle((await this.#verifiedBundle(peer)).json),
      );
      await this.#persist();
      return result;
    });
  }

  /**
   * The safety number with `address` (docs/protocol.md §16) from the keys trusted here; nothing
   * is fetched, so no one-time prekey is used up. ClientError PEER_UNKNOWN for a peer whose keys
   * were never learnt.
   */
  async safetyNumber(address: string): Promise<SafetyNumberReport> {
    const peer = addressArgument(address, "address");
    return safetyNumberReport(this.#requireState(), peer);
  }

  /** Ends every subscription, saves what is pending and releases the store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const subscriptions = [...this.#subscriptions];
    for (const subscription of subscriptions) subscription.close();
    await Promise.allSettled(subscriptions.map((s) => s.closed));
    await this.#serial.run(async () => {
      this.#closed = true;
      // A store with transactions was saved at the end of each change.
      if (this.#state && this.#options.store.transaction === undefined) await this.#persist();
    });
    await this.#options.store.close?.();
  }

  /**
   * The device list last verified for `account` (default: the own account), as remembered;
   * nothing is fetched. Undefined when none was seen.
   */
  rememberedDeviceList(account?: string): DeviceListInfo | undefined {
    const state = this.#requireState();
    const name =
      account === undefined ? accountOf(state.address) : addressArgument(account, "account");
    const list = name === undefined ? undefined : state.accounts?.[name];
    return list && name !== undefined ? listInfo(name, list) : undefined;
  }

  /**
   * Removes `address` (another device of this account, or this one) from the account's list: a
   * new version without it, signed by this device. Nothing sent after it reaches that device.
   */
  removeDevice(address: string): Promise<DeviceListInfo> {
    const device = addressArgument(address, "address");
    return this.#change(async () => {
      const account = this.#ownAccount();
      const written = await this.#writeList((current) => {
        if (!current.devices.some((entry) => entry.address === device)) {
          throw new ClientError(
            "DEVICE_NOT_LISTED",
            `${device} is not on ${account}'s device list`,
          );
        }
        return current.devices.filter((entry) => entry.address !== device);
      });
      return listInfo(account, written);
    });
  }

  /**
   * On a device of an account (the first one, or one on its list): makes a one-time link code,
   * passes it to `onCode`, waits for the new device's request and approves it (see
   * answerLinkRequests in linking.ts). Messages that arrive meanwhile stay in the inbox for
   * receive or subscribe.
   */
  approveLink(options: LinkOptions = {}): Promise<LinkedDevice> {
    this.#requireState();
    return answerLinkRequests(this.#linkHost(options.signal), options);
  }

  /**
   * A new device of an account: registers `address` (`<account>:<device>`) as init does, then
   * asks the device the code names to add it to the account's list and waits for the approval
   * (see sendLinkRequest in linking.ts). Its verified list.
   */
  async linkDevice(
    address: string,
    code: string,
    options: Pick<LinkOptions, "timeoutMs" | "signal"> = {},
  ): Promise<DeviceListInfo> {
    const normalized = addressArgument(address, "address");
    if (accountOf(normalized) === undefined) {
      throw new ClientError(
        "NO_ACCOUNT",
        `${normalized} has no device part (<account>:<device>), so no account to link to`,
      );
    }
    parseLinkCode(code);
    // A device that registered before (a link that timed out, or was refused) asks again.
    const registered = this.#state?.registered === true && this.#state.address === normalized;
    if (!registered) await this.init(normalized);
    return listInfo(
      accountOf(normalized) as string,
      await sendLinkRequest(this.#linkHost(options.signal), code, options),
    );
  }

  #linkHost(signal: AbortSignal | undefined): LinkHost {
    return {
      state: () => this.#requireState(),
      now: () => this.#options.now(),
      sendFrame: async (address, frame) => {
        await this.#deposit(address, await this.#seal(address, encodeDeviceFrame(frame)));
      },
      nextFrame: (wanted, deadline) => this.#nextLinkFrame(wanted, deadline, signal),
      ownList: () =>
        this.#change(
          async () => (await this.#listOrNone(this.#ownAccount())) ?? (await this.#startList()),
        ),
      readList: (account) => this.#change(() => this.#listOrNone(account)),
      addDevice: (device) =>
        this.#change(() =>
          this.#writeList((current) => [
            ...current.devices.filter((entry) => entry.address !== device.address),
            device,
          ]),
        ),
      peerKeys: (address) => this.#requireState().peers[address],
    };
  }

  /**
   * Polls the inbox (long polls, up to `deadline`) for a link frame from another device of the
   * own account that `wanted` accepts; that one is acked, every other message is decrypted and
   * saved but left for receive or subscribe to hand over.
   */
  async #nextLinkFrame(
    wanted: (from: string, frame: DeviceFrame) => boolean,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<{ from: string; frame: DeviceFrame }> {
    const account = this.#ownAccount();
    let since = 0;
    for (;;) {
      signal?.throwIfAborted();
      const outcomes = await this.#mailbox.unfinished();
      for (const outcome of outcomes) {
        if (outcome.kind !== "deliver") continue;
        const { from, plaintext, msgId } = outcome.message;
        if (from === this.#requireState().address || accountOf(from) !== account) continue;
        if (!isDeviceFrame(plaintext)) continue;
        let frame: DeviceFrame;
        try {
          frame = decodeDeviceFrame(plaintext);
        } catch {
          continue;
        }
        if (frame.kind === "sent-copy" || !wanted(from, frame)) continue;
        await this.#mailbox.markHandedOver([msgId]);
        await this.#mailbox.ack(msgId);
        return { from, frame };
      }
      const remaining = deadline - this.#options.now();
      if (remaining <= 0) {
        throw new ClientError("LINK_TIMEOUT", "no device answered the link in time");
      }
      const { envelopes } = await this.api.bridgePoll(
        {
          address: this.#requireState().address,
          since,
          timeoutMs: Math.min(remaining, LIMITS.pollTimeoutMs.default),
        },
        this.#signingKey(),
        { signal },
      );
      since = Math.max(since, ...envelopes.map((e) => e.receivedAt));
      const processed = await this.#mailbox.process(envelopes.map(inboundOf));
      await this.#mailbox.settle(
        processed.filter((outcome) => outcome.kind !== "deliver"),
        () => undefined,
      );
    }
  }

  /** The own account; an address without a device part has none (ClientError NO_ACCOUNT). */
  #ownAccount(): string {
    const { address } = this.#requireState();
    const account = accountOf(address);
    if (account === undefined) {
      throw new ClientError(
        "NO_ACCOUNT",
        `${address} has no device part (<account>:<device>), so no account and no device list`,
      );
    }
    return account;
  }

  /**
   * With the serial held: writes the version after the account's current list with the devices
   * `edit` gives, signed by this device, starting the list (version 1, this device alone) first
   * when the account has none. A version written meanwhile by another device (409) is read and
   * `edit` applied to it once more; a second conflict is ClientError DEVICE_LIST_CONFLICT.
   */
  async #writeList(
    edit: (current: KnownDeviceList) => KnownDeviceList["devices"],
  ): Promise<KnownDeviceList> {
    const state = this.#requireState();
    const account = this.#ownAccount();
    for (let attempt = 0; ; attempt++) {
      const current = (await this.#listOrNone(account)) ?? (await this.#startList());
      const list = signDeviceList(
        nextListFields(account, current, edit(current), state.address),
        this.#signingKey(),
      );
      try {
        await this.api.devicesWrite(account, deviceListToJson(list));
      } catch (error) {
        if (!(error instanceof SvcError && error.code === "SVC_DEVICE_LIST_CONFLICT")) {
          throw error;
        }
        if (attempt >= 1) {
          throw new ClientError(
            "DEVICE_LIST_CONFLICT",
            `another device changed ${account}'s device list meanwhile, twice: try again`,
            { cause: error },
          );
        }
        continue;
      }
      return this.#keepWritten(list);
    }
  }

  /** Writes version 1 of the own account's list, this device alone; remembered and saved. */
  async #startList(): Promise<KnownDeviceList> {
    const state = this.#requireState();
    const list = firstDeviceList(
      {
        address: state.address,
        identitySigningKey: decodeBase64(state.identity.identitySigningKey, 32),
      },
      this.#signingKey(),
    );
    await this.api.devicesWrite(list.account, deviceListToJson(list));
    return this.#keepWritten(list);
  }

  /** A version this device wrote, remembered as the account's latest verified one and saved. */
  async #keepWritten(list: DeviceList): Promise<KnownDeviceList> {
    const known = knownOf(list);
    remember(this.#requireState(), list.account, known);
    await this.#persist();
    return known;
  }

  /** Deposits a sealed envelope in `peer`'s inbox; its msgId. */
  async #deposit(peer: string, envelope: Uint8Array): Promise<string> {
    const fields = this.#depositFields(envelope);
    await this.api.inboxDeposit(peer, fields, this.#signingKey());
    return fields.msgId;
  }

  /**
   * Deposits a send's envelopes, in one request when there are several: the server checks and
   * stores them together, which is most of what a send to many devices costs beyond one. Without
   * the batch route (an older server) or past its size, one request each, as before. The batch
   * names the device list versions of `plan` unless the server is known not to check them (a
   * send of one envelope takes the batch route for the check). Undefined: the lists were not read
   * in this send and the server cannot check them here (no batch route, too large, a server
   * that predates the check), so they are to be read before anything is sent.
   */
  async #depositAll(
    envelopes: Array<{ address: string; envelope: Uint8Array }>,
    plan?: FanOut,
  ): Promise<string[] | undefined> {
    const deposits = envelopes.map(({ address, envelope }) => ({
      address,
      fields: this.#depositFields(envelope),
    }));
    const msgIds = deposits.map((deposit) => deposit.fields.msgId);
    const checked = plan !== undefined && this.#versionChecks !== false;
    const unread = plan !== undefined && !plan.read;
    if (deposits.length === 0 || (unread && !checked)) return unread ? undefined : msgIds;
    if ((deposits.length > 1 || checked) && this.#batchDeposits) {
      try {
        const deviceLists = checked ? plan.deviceLists : undefined;
        const { results } = await this.api.inboxDepositBatch(deposits, this.#signingKey(), {
          deviceLists,
        });
        if (checked) this.#versionChecks = true;
        return acceptedBatch(msgIds, results);
      } catch (error) {
        if (checked && versionsRefused(error)) {
          this.#versionChecks = false;
          return this.#depositAll(envelopes, plan);
        }
        if (!batchRefused(error)) throw error;
        if (error.status === 404) this.#batchDeposits = false;
        if (unread) return undefined;
      }
    }
    await Promise.all(
      deposits.map(({ address, fields }) =>
        this.api.inboxDeposit(address, fields, this.#signingKey()),
      ),
    );
    return msgIds;
  }

  #depositFields(envelope: Uint8Array) {
    const state = this.#requireState();
    return {
      msgId: msgIdOf(envelope),
      ciphertext: encodeBase64(envelope),
      expiresAt: this.#options.now() + DEPOSIT_TTL_MS,
      senderPublicKey: state.identity.identitySigningKey,
      from: state.address,
    };
  }

  /** `account`'s verified list (saved when it moved on), or undefined when it has none. */
  async #readList(account: string): Promise<KnownDeviceList | undefined> {
    const state = this.#requireState();
    const before = state.accounts?.[account];
    const list = await readDeviceList({ api: this.api, kt: this.#kt }, state, account);
    if (list !== before) await this.#persist();
    this.#listsReadAt.set(account, this.#options.now());
    return list;
  }

  /**
   * With the serial held: the envelopes of a send to `to` when it is an account with a device
   * list (undefined: `to` is a device address, sent to as it is), and the list versions they were
   * chosen from. The lists are read (both at once) unless they are remembered and the server is
   * known to check the versions a batch names; `reread`: after the server said some changed,
   * only those are read. Every device's identity key is checked against the list before
   * anything is sealed: the keys of its sessions, or of its KT-verified bundle (kept for the
   * session it starts). A device whose identity was deleted (its bundle 404) is skipped.
   */
  async #fanOut(
    to: string,
    plaintext: Uint8Array,
    reread?: readonly string[],
  ): Promise<FanOut | undefined> {
    const state = this.#requireState();
    const now = this.#options.now();
    if (reread === undefined) {
      // A device this client has a session with, not an account it saw a list of: sent to as a
      // device, without asking for a list each time.
      if (state.sessions[to]?.length && state.accounts?.[to] === undefined) return undefined;
      // Sends queued before the first one's session exists ask once, not each.
      if ((this.#noListUntil.get(to) ?? 0) > now) return undefined;
    }
    const ownAccount = accountOf(state.address);
    const own = ownAccount !== undefined && ownAccount !== to ? ownAccount : undefined;
    const known = (account: string) => state.accounts?.[account];
    const recent = (account: string) =>
      known(account) !== undefined &&
      now - (this.#listsReadAt.get(account) ?? Number.NEGATIVE_INFINITY) < LIST_REMEMBERED_MS;
    const remembered =
      this.#versionChecks === true && recent(to) && (own === undefined || recent(own));
    const read = (account: string) =>
      reread === undefined ? !remembered : reread.includes(account);
    // Both lists at once: each is a round trip and a proof check before anything is sealed. The
    // own list matters only for a send to an account: for a device, its outcome is not used.
    const [listRead, ownRead] = await Promise.allSettled([
      read(to) ? this.#listOrNone(to) : known(to),
      own === undefined ? undefined : read(own) ? this.#readList(own) : known(own),
    ]);
    if (listRead.status === "rejected") throw listRead.reason;
    const list = listRead.value;
    if (list === undefined) {
      this.#noListUntil.set(to, now + NO_LIST_REMEMBERED_MS);
      return undefined;
    }
    this.#noListUntil.delete(to);
    if (ownRead.status === "rejected") throw ownRead.reason;
    const ownList = ownRead.value;
    const deliveries = deliveriesOf({
      self: state.address,
      ownAccount,
      account: to,
      list,
      own: ownList,
      plaintext,
      now,
    });
    const keys = new Map(
      [...list.devices, ...(ownList?.devices ?? [])].map((d) => [d.address, d.identitySigningKey]),
    );
    // Bundles fetched here are kept in the state, saved with the envelopes they start (#sealAll):
    // one save per send.
    const live = await Promise.all(
      deliveries.map((delivery) =>
        this.#listedKeyHolds(delivery.address, keys.get(delivery.address) as string),
      ),
    );
    const deviceLists = [{ account: to, version: list.version }];
    if (own !== undefined && ownList !== undefined) {
      deviceLists.push({ account: own, version: ownList.version });
    }
    return {
      deliveries: deliveries.filter((_, i) => live[i]),
      deviceLists,
      read: deviceLists.every((entry) => read(entry.account)),
    };
  }

  /** A list for `to`, or undefined when the server has none for it and none was seen. */
  async #listOrNone(to: string): Promise<KnownDeviceList | undefined> {
    try {
      return await this.#readList(to);
    } catch (error) {
      // A device address is not an account: a server may refuse it as one.
      if (
        error instanceof SvcError &&
        error.status === 400 &&
        !this.#requireState().accounts?.[to]
      ) {
        return undefined;
      }
      throw error;
    }
  }

  /**
   * Whether `address` (listed with `listedKey`) is to be sent to: its identity keys as trusted
   * here, or as its KT-verified bundle gives them, must be the list's; false when its identity is
   * gone from the directory.
   */
  async #listedKeyHolds(address: string, listedKey: string): Promise<boolean> {
    const state = this.#requireState();
    const account = accountOf(address) ?? address;
    const trusted = state.peers[address];
    if (trusted === undefined) {
      let fetched: StoredBundle;
      try {
        fetched = storedBundle((await this.#fetchBundle(address)).json);
      } catch (error) {
        if (error instanceof SvcError && error.status === 404) return false;
        throw error;
      }
      if (fetched.identitySigningKey !== listedKey) {
        delete state.peers[address];
        throw invalid(account, `${address} is listed with other keys than its directory's`);
      }
      state.unusedBundles ??= dictionary();
      state.unusedBundles[address] = fetched;
      return true;
    }
    if (trusted.identitySigningKey !== listedKey) {
      throw invalid(account, `${address} is listed with other keys than the ones trusted for it`);
    }
    return true;
  }

  /** What a decrypted message is for the application (device frames read). */
  #read(message: InboundMessage): Promise<Reading> {
    const state = this.#requireState();
    const account = accountOf(state.address);
    return readMessage(
      {
        state,
        ownList: (again) =>
          account === undefined
            ? Promise.resolve(undefined)
            : again
              ? this.#change(() => this.#listOrNone(account))
              : Promise.resolve(state.accounts?.[account]),
      },
      message,
    );
  }

  #newState(address: string): StoredState {
    const identity = createIdentity();
    const signedPreKey = createSignedPreKey(identity, 1);
    const state: StoredState = {
      version: STATE_VERSION,
      address,
      registered: false,
      identity: storedIdentity(identity),
      signedPreKeys: [
        {
          keyId: signedPreKey.keyId,
          publicKey: encodeBase64(signedPreKey.publicKey),
          privateKey: encodeBase64(signedPreKey.privateKey),
          signature: encodeBase64(signedPreKey.signature),
        },
      ],
      oneTimePreKeys: dictionary(),
      nextOneTimePreKeyId: 1,
      sessions: dictionary(),
      peers: dictionary(),
      kt: this.#ktPin,
      cursor: 0,
      unacked: dictionary(),
      recentlyAcked: [],
    };
    addOneTimePreKeys(state, Math.min(this.#options.prekeys.target, REGISTER_BATCH));
    return state;
  }

  /** keys register with every local one-time prekey (a retry re-sends the same: D5 skips them), then inbox register. */
  async #register(state: StoredState): Promise<void> {
    const signedPreKey = currentSignedPreKey(state);
    const key = decodeBase64(state.identity.signingSeed, 32);
    // A server without ML-KEM prekeys answers no kemCount and would refuse KEM members: the
    // identity registers classic there, and a later replenish on an upgraded server adds them.
    const { kemCount } = await this.api.keysCount(state.address);
    // KEM seeds are kept, not their 1568-byte public keys: a retry uploads fresh one-time ones.
    const lastResort = kemCount === undefined ? undefined : kemLastResortPreKeyOf(state);
    const kemPreKeys = lastResort
      ? addKemPreKeys(state, Math.min(this.#options.prekeys.target, REGISTER_BATCH))
      : [];
    await this.#persist();
    await this.api.keysRegister(
      {
        address: state.address,
        identitySigningKey: state.identity.identitySigningKey,
        identityDHKey: state.identity.identityDHKey,
        signedPreKey: {
          keyId: signedPreKey.keyId,
          publicKey: signedPreKey.publicKey,
          signature: signedPreKey.signature,
        },
        oneTimePreKeys: Object.entries(state.oneTimePreKeys)
          .slice(0, REGISTER_BATCH)
          .map(([keyId, { publicKey }]) => ({ keyId: Number(keyId), publicKey })),
        ...(lastResort ? { kemLastResortPreKey: kemEntry(lastResort), kemPreKeys } : {}),
      },
      key,
    );
    if (lastResort) lastResort.uploaded = true;
    await this.api.inboxRegister(
      { address: state.address, signingPublicKey: state.identity.identitySigningKey },
      key,
    );
    if (this.#options.prekeys.target > REGISTER_BATCH) await this.#replenish(true);
  }

  /** With the serial held: uploads keys up to the target when forced or below the threshold. */
  async #replenish(force: boolean): Promise<number> {
    const state = this.#requireState();
    const { target, threshold } = this.#options.prekeys;
    const { count, kemCount: served } = await this.api.keysCount(state.address);
    // No kemCount: the server takes no KEM keys, so none are topped up (see #register).
    const kemCount = served ?? target;
    const upgrade = served !== undefined && state.kemLastResortPreKey?.uploaded !== true;
    if (!force && !upgrade && count >= threshold && kemCount >= threshold) return 0;
    let uploaded = 0;
    let kemUploaded = 0;
    let lastResort = upgrade ? kemLastResortPreKeyOf(state) : undefined;
    while (count + uploaded < target || kemCount + kemUploaded < target || lastResort) {
      const keys = addOneTimePreKeys(state, batch(target - count - uploaded));
      const kemKeys = addKemPreKeys(state, batch(target - kemCount - kemUploaded));
      await this.#persist();
      await this.api.keysReplenish(
        {
          address: state.address,
          ...(keys.length ? { oneTimePreKeys: keys } : {}),
          ...(kemKeys.length ? { kemPreKeys: kemKeys } : {}),
          ...(lastResort ? { kemLastResortPreKey: kemEntry(lastResort) } : {}),
        },
        this.#signingKey(),
      );
      if (lastResort) {
        lastResort.uploaded = true;
        await this.#persist();
        lastResort = undefined;
      }
      uploaded += keys.length;
      kemUploaded += kemKeys.length;
    }
    return uploaded;
  }

  /**
   * Replenishes in the background after a batch of messages; failures are reported but for a
   * server away (the next batch tries again).
   */
  #afterBatch(): void {
    if (this.#closed || this.#state === undefined) return;
    this.#change(() => this.#replenish(false)).catch((error) => {
      if (isTransient(error) || (error instanceof ClientError && error.code === "CLOSED")) return;
      this.#report(error);
    });
  }

  /** The next envelope for `peer`, starting a session from its bundle on first use; saved. */
  #seal(peer: string, plaintext: Uint8Array): Promise<Uint8Array> {
    if (!(plaintext instanceof Uint8Array)) throw new TypeError("plaintext must be a Uint8Array");
    return this.#change(async () => {
      const envelope = await this.#sealUnsaved(peer, plaintext);
      await this.#persist();
      return envelope;
    });
  }

  /** The envelopes of a send's deliveries, in order, saved once for all of them. */
  #sealAll(deliveries: Delivery[]): Promise<Uint8Array[]> {
    return this.#change(async () => {
      const envelopes: Uint8Array[] = [];
      for (const delivery of deliveries) {
        envelopes.push(await this.#sealUnsaved(delivery.address, delivery.plaintext));
      }
      await this.#persist();
      return envelopes;
    });
  }

  /** With the serial held: the next envelope for `peer`, its session advanced but not saved. */
  async #sealUnsaved(peer: string, plaintext: Uint8Array): Promise<Uint8Array> {
    const state = this.#requireState();
    refuseIfChanged(state, peer);
    const next = encryptOnActive(state.sessions[peer] ?? [], plaintext);
    if (next !== undefined) {
      state.sessions[peer] = next.sessions;
      return next.envelope;
    }
    const unused = takeUnusedBundle(state, peer);
    const { keys } = unused ? { keys: decodeBundle(unused) } : await this.#fetchBundle(peer);
    const started = await initiateSession(identityOf(state), keys, plaintext).catch((error) => {
      if (!(error instanceof RatchetError)) throw error;
      throw new ClientError("BAD_RESPONSE", `the bundle of ${peer} is refused: ${error.message}`, {
        cause: error,
      });
    });
    state.sessions[peer] = withNewSession(state.sessions[peer], started.session);
    return started.envelope;
  }

  /**
   * A bundle, KT-verified unless KT is off, whose identity keys are remembered for `address` the
   * first time; other keys than those are IDENTITY_CHANGED (kept, with the bundle, for trust()).
   */
  async #fetchBundle(
    address: string,
  ): Promise<{ keys: PreKeyBundleKeys; json: ApiAnswer<"keysBundle"> }> {
    const fetched = await this.#verifiedBundle(address);
    const state = this.#state;
    if (state) {
      const seen = {
        identitySigningKey: fetched.json.identitySigningKey,
        identityDHKey: fetched.json.identityDHKey,
      };
      const trusted = state.peers[address];
      if (trusted === undefined) state.peers[address] = seen;
      else if (!sameKeys(trusted, seen)) {
        recordChange(state, address, seen, storedBundle(fetched.json));
        await this.#persist();
        throw identityChanged(address, trusted, seen, "now the directory has");
      }
      rememberPostQuantum(state, address, fetched.json);
    }
    return fetched;
  }

  /**
   * A bundle, KT-verified unless KT is off, checked to decode; PQ_DOWNGRADE when it has no KEM
   * prekey and the KT leaf, or an earlier bundle of the same identity, says it must.
   */
  async #verifiedBundle(
    address: string,
  ): Promise<{ keys: PreKeyBundleKeys; json: ApiAnswer<"keysBundle"> }> {
    const { bundle: json } = await this.#kt.fetchBundle(address);
    let keys: PreKeyBundleKeys;
    try {
      keys = decodeBundle(json);
    } catch (error) {
      throw new ClientError("BAD_RESPONSE", `the bundle of ${address} is malformed`, {
        cause: error,
      });
    }
    if (this.#state) refuseDowngrade(this.#state, address, json);
    return { keys, json };
  }

  #inbound(): InboundContext {
    return {
      identity: identityOf(this.#requireState()),
      directoryBundle: async (address) => storedBundle((await this.#verifiedBundle(address)).json),
      peerIdentity: async (address): Promise<IdentityKeys> => {
        const known = this.#requireState().peers[address];
        if (known) {
          return {
            identitySigningKey: decodeBase64(known.identitySigningKey, 32),
            identityDHKey: decodeBase64(known.identityDHKey, 32),
          };
        }
        const { identitySigningKey, identityDHKey } = (await this.#fetchBundle(address)).keys;
        return { identitySigningKey, identityDHKey };
      },
    };
  }

  /**
   * Runs one change of the state, after the changes asked before it. With a store that has
   * transactions, the change runs inside one, on the state loaded afresh (another client or
   * process may have changed it), and whatever it saved is on disk before the store is let go.
   * Only `init` (`creates`) takes the store while it holds no identity: other changes then fail
   * with NO_IDENTITY without touching it, so a command on a home that does not exist makes none.
   */
  #change<T>(task: () => Promise<T>, creates = false): Promise<T> {
    const { store } = this.#options;
    if (store.transaction === undefined) return this.#serial.run(task);
    const transaction = store.transaction.bind(store);
    return this.#serial.run(() => {
      if (this.#state === undefined && !creates) return task();
      return transaction(async () => {
        this.#checkOpen();
        const loaded = await store.load();
        this.#state = loaded === undefined ? undefined : parseState(loaded);
        try {
          return await task();
        } finally {
          await this.#saves;
        }
      });
    });
  }

  /**
   * Saves the state as it is when the save starts. Saves run one at a time; a call while one is
   * queued and not started joins it, since that save will hold this call's changes too: under
   * load a store writes (and a file store fsyncs) once per burst, not once per change.
   */
  #persist(): Promise<void> {
    if (this.#state === undefined) return this.#saves;
    if (this.#queuedSave) return this.#queuedSave;
    const save = this.#saves.then(() => {
      this.#queuedSave = undefined;
      const state = this.#state;
      return state === undefined ? undefined : this.#options.store.save(structuredClone(state));
    });
    this.#queuedSave = save;
    this.#saves = save.catch(() => undefined);
    return save;
  }

  #requireState(): StoredState {
    this.#checkOpen();
    if (this.#state === undefined) {
      throw new ClientError("NO_IDENTITY", "the store holds no identity: run init first");
    }
    return this.#state;
  }

  #checkOpen(): void {
    if (this.#closed) throw new ClientError("CLOSED", "the client is closed");
  }

  #signingKey(): Uint8Array {
    return decodeBase64(this.#requireState().identity.signingSeed, 32);
  }

  #report(error: unknown): void {
    try {
      this.#options.onError(error);
    } catch {
      // A failing reporter must not break delivery.
    }
  }
}

/** One-time prekeys per register or replenish request (the server's cap, D5). */
const REGISTER_BATCH = 100;

/** How many of `missing` keys one request carries. */
const batch = (missing: number): number => Math.max(0, Math.min(REGISTER_BATCH, missing));

function identityInfo(state: StoredState): IdentityInfo {
  return {
    address: state.address,
    identitySigningKey: state.identity.identitySigningKey,
    identityDHKey: state.identity.identityDHKey,
  };
}

function listInfo(account: string, list: KnownDeviceList): DeviceListInfo {
  return { account, version: list.version, devices: list.devices };
}
