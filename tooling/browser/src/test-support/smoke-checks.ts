import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type * as Canonical from "@svc/canonical";
import type * as KtVerify from "@svc/kt-verify";
import type * as Merkle from "@svc/merkle";
import type * as Protocol from "@svc/protocol";
import type * as Transfer from "@svc/protocol/transfer";
import type * as Ratchet from "@svc/ratchet";
import { REPO_ROOT } from "../portable-packages.js";

/**
 * What a portable package must do in the page. `inPage` runs in Chromium with the bundle's
 * module namespace, so it may use nothing from this file: only its arguments and browser
 * globals. Its JSON-serializable result must equal `expected(input)`.
 */
export interface SmokeCheck<Module, Input> {
  /** JSON-serializable input, read on the Node side (fixtures). */
  input(): Promise<Input>;
  inPage(module: Module, input: Input): unknown;
  expected(input: Input): unknown;
}

/** A check with its types erased, as the test holds them side by side. */
export type AnySmokeCheck = SmokeCheck<unknown, unknown>;

function smokeCheck<Module, Input>(check: SmokeCheck<Module, Input>): AnySmokeCheck {
  return check as unknown as AnySmokeCheck;
}

async function fixture<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(join(REPO_ROOT, path), "utf8")) as T;
}

interface SignedBodyVector {
  method: string;
  path: string;
  body: Record<string, unknown> & { signature: string };
  canonical: string;
}

interface SpecVectors {
  keys: { alice: { seed: string; publicKey: string } };
  signedBodies: { register: SignedBodyVector };
  bridgeQuery: {
    payload: { address: string; since: number; signedAt: number };
    canonical: string;
  };
}

/** Keyed by directory under packages/: every portable package has one. */
export const SMOKE_CHECKS: Record<string, AnySmokeCheck> = {
  canonical: smokeCheck({
    input: () => fixture<SpecVectors>("packages/canonical/src/fixtures/spec-vectors.json"),
    inPage(c: typeof Canonical, spec) {
      // The signed body's message is @svc/protocol's; its bytes are JCS, which is canonical's.
      const { body, canonical } = spec.signedBodies.register;
      const message = new TextEncoder().encode(canonical);
      const signature = c.decodeBase64(body.signature, 64);
      const publicKey = c.decodeBase64(spec.keys.alice.publicKey, 32);
      const flipped = signature.slice();
      flipped[10] = (flipped[10] as number) ^ 1;
      return {
        jcs: c.canonicalize({ b: [1, "x", null], a: true }),
        canonicalForm: c.canonicalize(JSON.parse(canonical)) === canonical,
        verifies: c.portableEd25519.verify(signature, message, publicKey),
        flippedVerifies: c.portableEd25519.verify(flipped, message, publicKey),
        signsAlike:
          c.encodeBase64(c.ed25519Sign(message, c.decodeBase64(spec.keys.alice.seed, 32))) ===
          body.signature,
      };
    },
    expected: () => ({
      jcs: '{"a":true,"b":[1,"x",null]}',
      canonicalForm: true,
      verifies: true,
      flippedVerifies: false,
      signsAlike: true,
    }),
  }),

  // @svc/client is typed here by the few exports the check uses, so the harness needs no
  // dependency on it: esbuild bundles it from its path.
  client: smokeCheck({
    input: async () => null,
    async inPage(c: ClientModule) {
      const requests: { method: string; url: string; body: Record<string, unknown> }[] = [];
      const api = c.createApi({
        server: "http://svc.test",
        maxRetries: 0,
        requestTimeoutMs: 5000,
        now: () => 1763780000000,
        fetch: async (url: string | URL | Request, init?: RequestInit) => {
          requests.push({
            method: init?.method ?? "GET",
            url: String(url),
            body: JSON.parse(String(init?.body ?? "{}")),
          });
          return new Response(requests.length === 1 ? '{"ok":true}' : '{"count":-1}');
        },
      });
      await api.inboxAck("alice:1", "0".repeat(64), new Uint8Array(32).fill(1));
      const refusal = await api.keysCount("alice:1").catch((error: { code: string }) => error.code);
      const [ack] = requests;
      return {
        ack: [ack?.method, ack?.url, Object.keys(ack?.body ?? {}).sort(), ack?.body.signedAt],
        refusal,
      };
    },
    expected: () => ({
      ack: [
        "DELETE",
        `http://svc.test/v1/inbox/alice:1/${"0".repeat(64)}`,
        ["signature", "signedAt"],
        1763780000000,
      ],
      refusal: "BAD_RESPONSE",
    }),
  }),

  merkle: smokeCheck({
    input: () =>
      fixture<{
        ct: { leavesHex: string[]; emptyRoot: string; roots: { treeSize: number; root: string }[] };
      }>("packages/merkle/src/fixtures/rfc9162.json"),
    inPage(m: typeof Merkle, { ct }) {
      const hex = (bytes: Uint8Array) =>
        Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      const unhex = (text: string) =>
        Uint8Array.from(text.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
      const leaves = ct.leavesHex.map((leaf) => m.leafHash(unhex(leaf)));
      return {
        emptyRoot: hex(m.emptyRoot()),
        roots: ct.roots.map(({ treeSize }) => hex(m.rootFromLeafHashes(leaves.slice(0, treeSize)))),
      };
    },
    expected: ({ ct }) => ({ emptyRoot: ct.emptyRoot, roots: ct.roots.map(({ root }) => root) }),
  }),

  "kt-verify": smokeCheck({
    input: async () => ({
      spec: await fixture<KtSpecSth>("packages/kt-verify/src/fixtures/spec-sth.json"),
      vectors: await fixture<KtVectors>("packages/kt-verify/src/fixtures/kt-vectors.json"),
      witnessed: await fixture<KtWitnessed>(
        "packages/kt-verify/src/fixtures/witnessed-checkpoint.json",
      ),
    }),
    // The proofs of kt-vectors.json (made by a real log, format 3: v2 leaves keyed by VRF index)
    // verify with WebCrypto under the log's pinned VRF key, the trusted STH is kept in
    // localStorage, and a tampered proof, another address's VRF proof and the same proofs
    // without the VRF key are refused. Under a 2-of-3 witness policy they verify with
    // witnessed-checkpoint.json's note, and not with one cosignature less. (How fast: `pnpm
    // bench kt`, never a timed test.)
    async inPage(kt: typeof KtVerify, { spec, vectors, witnessed }) {
      const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const specSth = kt.parseSth(spec.sth.sth);
      const publicKey = b64(vectors.operator.publicKey);
      const vrfPublicKey = b64(vectors.vrf.publicKey);
      const sths = vectors.sths.map((s) => kt.parseSth(s));
      const latest = sths[3] as KtVerify.SignedTreeHead;
      const client: KtVerify.LogClient = {
        logPublicKey: async () => publicKey,
        sth: async (n?: number) => sths[n ?? 3] as KtVerify.SignedTreeHead,
        consistency: async (from: number, to: number) =>
          (vectors.consistency.find((c) => c.from === from && c.to === to)?.proof ?? []).map(b64),
        leaves: async () => [],
      };
      localStorage.clear();
      const verifier = new kt.KtVerifier({
        logPublicKey: publicKey,
        vrfPublicKey,
        client,
        store: kt.localStorageStore("svc-kt-sth"),
        now: () => latest.timestampMs + 1000,
      });
      const bob = vectors.changes[1] as { identitySigningKey: string; identityDHKey: string };
      const inclusion: KtVerify.KtClaim = {
        type: "inclusion",
        identitySigningKey: b64(bob.identitySigningKey),
        identityDHKey: b64(bob.identityDHKey),
      };
      const claims: Record<string, KtVerify.KtClaim> = {
        inclusion,
        tombstone: { type: "tombstone" },
        absence: { type: "absence" },
      };
      const verified: string[] = [];
      for (const [type, { address, ktProof }] of Object.entries(vectors.proofs)) {
        const claim = claims[type];
        if (claim === undefined) throw new Error(`no claim for the ${type} proof`);
        const result = await verifier.verifyProof(address, ktProof, claim);
        verified.push(`${result.type} ${result.format}`);
      }
      const codeOf = async (work: Promise<unknown>) => {
        try {
          await work;
          return "accepted";
        } catch (error) {
          return (error as { code: string }).code;
        }
      };
      const bobIndex = kt.vrfIndex(
        vrfPublicKey,
        b64((vectors.changes[1] as { vrfProof: string }).vrfProof),
        "bob@example.org:1",
      );
      const bobChange = vectors.changes[1] as { index: string };
      const vrfIndexMatches =
        bobIndex !== undefined && btoa(String.fromCharCode(...bobIndex)) === bobChange.index;
      const otherAddressCode = await codeOf(
        verifier.verifyProof("alice@example.org:1", vectors.proofs.inclusion?.ktProof, inclusion),
      );
      const withoutVrfKeyCode = await codeOf(
        new kt.KtVerifier({ logPublicKey: publicKey, client }).verifyProof(
          "bob@example.org:1",
          vectors.proofs.inclusion?.ktProof,
          inclusion,
        ),
      );
      const tampered = structuredClone(vectors.proofs.inclusion?.ktProof) as {
        body: { leafIndex: number };
      };
      tampered.body.leafIndex = 0;
      let tamperedCode = "accepted";
      try {
        await verifier.verifyProof("bob@example.org:1", tampered, inclusion);
      } catch (error) {
        tamperedCode = (error as { code: string }).code;
      }
      const witnessedVerifier = () =>
        new kt.KtVerifier({
          logPublicKey: publicKey,
          vrfPublicKey,
          client: { ...client, checkpoint: async () => witnessed.note },
          now: () => latest.timestampMs + 1000,
          witnessPolicy: witnessed.policy,
        });
      const withCheckpoint = (ktProof: unknown, checkpoint: string) => ({
        ...(ktProof as object),
        checkpoint,
      });
      const bobProof = vectors.proofs.inclusion as { address: string; ktProof: unknown };
      const witnessedTypes: string[] = [];
      const policyVerifier = witnessedVerifier();
      for (const [type, { address, ktProof }] of Object.entries(vectors.proofs)) {
        const claim = claims[type] as KtVerify.KtClaim;
        const proof = withCheckpoint(ktProof, witnessed.note);
        const result = await policyVerifier.verifyProof(address, proof, claim);
        witnessedTypes.push(`${result.type} ${result.format}`);
      }
      const oneCosignature = witnessed.note.slice(0, witnessed.note.lastIndexOf("\u2014 "));
      let quorumCode = "accepted";
      try {
        await witnessedVerifier().verifyProof(
          bobProof.address,
          withCheckpoint(bobProof.ktProof, oneCosignature),
          inclusion,
        );
      } catch (error) {
        quorumCode = (error as { code: string }).code;
      }
      return {
        specSth: await kt.verifySthSignature(specSth, b64(spec.ktOperator.publicKey)),
        verified,
        tamperedCode,
        vrfIndexMatches,
        otherAddressCode,
        withoutVrfKeyCode,
        webCrypto: await kt.webCryptoEd25519(),
        stored: JSON.parse(localStorage.getItem("svc-kt-sth") ?? "null")?.treeSize,
        witnessedTypes,
        quorumCode,
      };
    },
    expected: () => ({
      specSth: true,
      verified: ["inclusion 3", "tombstone 3", "absence 3"],
      tamperedCode: "KT_BAD_PROOF",
      vrfIndexMatches: true,
      otherAddressCode: "KT_BAD_PROOF",
      withoutVrfKeyCode: "KT_MALFORMED",
      webCrypto: true,
      stored: 3,
      witnessedTypes: ["inclusion 3", "tombstone 3", "absence 3"],
      quorumCode: "KT_WITNESS_QUORUM",
    }),
  }),

  protocol: smokeCheck({
    input: () => fixture<SpecVectors>("packages/canonical/src/fixtures/spec-vectors.json"),
    inPage(p: typeof Protocol, spec) {
      const register = spec.signedBodies.register.body as unknown as Protocol.PreKeyBundleJson & {
        oneTimePreKeys: Protocol.OneTimePreKeyJson[];
      };
      const wire: Protocol.PreKeyBundleJson = {
        identitySigningKey: register.identitySigningKey,
        identityDHKey: register.identityDHKey,
        signedPreKey: register.signedPreKey,
        oneTimePreKey: register.oneTimePreKeys[0],
      };
      const refusal = (json: unknown) => {
        try {
          p.decodeBundle(json);
          return "accepted";
        } catch (error) {
          return error instanceof p.SvcError ? error.code : String(error);
        }
      };
      const { method, path, body, canonical } = spec.signedBodies.register;
      const { payload, canonical: queryCanonical } = spec.bridgeQuery;
      const { signature, ...fields } = body;
      const seed = Uint8Array.from(atob(spec.keys.alice.seed), (c) => c.charCodeAt(0));
      return {
        roundTrip: JSON.stringify(p.encodeBundle(p.decodeBundle(wire))) === JSON.stringify(wire),
        shortKey: refusal({ ...wire, identityDHKey: "AAAA" }),
        missingField: refusal({ ...wire, signedPreKey: undefined }),
        signedBody: new TextDecoder().decode(p.signedBodyMessage(method, path, body)) === canonical,
        signsAlike: p.signedBody(method, path, fields, seed).signature === signature,
        bridgeQuery:
          new TextDecoder().decode(p.bridgeQueryMessage({ ...payload, kind: "stream" })) ===
          queryCanonical,
        msgId: p.msgIdOf(new TextEncoder().encode("abc")),
      };
    },
    expected: () => ({
      roundTrip: true,
      shortKey: "SVC_INVALID_KEY",
      missingField: "SVC_BAD_REQUEST",
      signedBody: true,
      signsAlike: true,
      bridgeQuery: true,
      // SHA-256("abc"), FIPS 180-2 appendix B.1.
      msgId: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    }),
  }),

  ratchet: smokeCheck({
    input: async () => null,
    async inPage(r: typeof Ratchet) {
      const utf8 = new TextEncoder();
      const text = new TextDecoder();
      const alice = r.createIdentity();
      const bob = r.createIdentity();
      const signedPreKey = r.createSignedPreKey(bob, 1);
      const oneTimePreKey = r.createOneTimePreKey(100);
      const store = new r.MemoryPreKeyStore();
      store.addSignedPreKey(signedPreKey);
      store.addOneTimePreKey(oneTimePreKey);
      const { session: aliceSession, envelope } = await r.initiateSession(
        alice,
        {
          identitySigningKey: bob.identitySigningKey,
          identityDHKey: bob.identityDHKey,
          signedPreKey: {
            keyId: signedPreKey.keyId,
            publicKey: signedPreKey.publicKey,
            signature: signedPreKey.signature,
          },
          oneTimePreKey: { keyId: oneTimePreKey.keyId, publicKey: oneTimePreKey.publicKey },
        },
        utf8.encode("hello bob"),
      );
      const first = await r.respondToFirstMessage(bob, store, envelope);
      const reply = aliceSession.decrypt(first.session.encrypt(utf8.encode("hello alice")));

      // PQXDH, as the browser sets it up with a peer that has an ML-KEM-1024 prekey.
      const kemPreKey = r.createKemPreKey(bob, 7);
      store.addKemPreKey({ keyId: kemPreKey.keyId, seed: kemPreKey.seed, lastResort: true });
      const pq = await r.initiateSession(
        alice,
        {
          identitySigningKey: bob.identitySigningKey,
          identityDHKey: bob.identityDHKey,
          signedPreKey: {
            keyId: signedPreKey.keyId,
            publicKey: signedPreKey.publicKey,
            signature: signedPreKey.signature,
          },
          kemPreKey: {
            keyId: kemPreKey.keyId,
            publicKey: kemPreKey.publicKey,
            signature: kemPreKey.signature,
            lastResort: true,
          },
        },
        utf8.encode("hello bob, post-quantum"),
      );
      const pqFirst = await r.respondToFirstMessage(bob, store, pq.envelope);
      const pqReply = pq.session.decrypt(pqFirst.session.encrypt(utf8.encode("hello alice")));
      return {
        first: text.decode(first.plaintext),
        reply: text.decode(reply),
        oneTimePreKeyUsed: store.oneTimePreKeyCount === 0,
        classic: [aliceSession.postQuantum, first.postQuantum],
        pqFirst: text.decode(pqFirst.plaintext),
        pqReply: text.decode(pqReply),
        postQuantum: [pq.session.postQuantum, pqFirst.postQuantum, pqFirst.session.postQuantum],
      };
    },
    expected: () => ({
      first: "hello bob",
      reply: "hello alice",
      oneTimePreKeyUsed: true,
      classic: [false, false],
      pqFirst: "hello bob, post-quantum",
      pqReply: "hello alice",
      postQuantum: [true, true, true],
    }),
  }),

  // @svc/protocol/transfer: the spec's D9 vector is sealed and opened in the page; the version 2
  // vectors' AES-256-GCM chunks are opened by the portable cipher and by WebCrypto alike.
  "protocol/transfer": smokeCheck({
    input: async () => ({
      ...(await fixture<TransferSpecVector>(
        "packages/protocol/src/fixtures/spec-transfer-vector.json",
      )),
      v2: await fixture<TransferV2Vectors>(
        "packages/protocol/src/fixtures/transfer-v2-vectors.json",
      ),
    }),
    async inPage(t: typeof Transfer, { transfer: vector, v2 }) {
      const hex = (bytes: Uint8Array) =>
        Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      const unhex = (text: string) =>
        Uint8Array.from(text.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
      const b64 = (text: string) =>
        Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
      const key = b64(vector.streamKey);
      const plaintext = unhex(vector.plaintextHex);
      const chunk = {
        key,
        streamId: b64(vector.streamId),
        laneId: vector.laneId,
        seq: BigInt(vector.seq),
        offset: Number(new DataView(plaintext.buffer).getBigUint64(0)),
        data: plaintext.subarray(8),
      };
      const envelope = t.sealChunk(chunk);
      const opened = t.openChunk(envelope, key);
      const tampered = envelope.slice();
      tampered[40] = (tampered[40] as number) ^ 1;
      let tamperedCode = "accepted";
      try {
        t.openChunk(tampered, key);
      } catch (error) {
        tamperedCode = (error as { code: string }).code;
      }
      const signed = { address: "alice@example.com:1", signedAt: 1763780000000 };
      const streamId = vector.streamId;
      return {
        envelope: hex(envelope),
        opened: [opened.header.laneId, String(opened.header.seq), opened.offset, hex(opened.data)],
        tamperedCode,
        chunkMessage: hex(t.chunkSignedMessage({ ...signed, ...chunk, streamId, body: envelope })),
        stateMessage: hex(t.stateSignedMessage({ ...signed, streamId })),
        lastChunk: t.planStream({ size: 10, chunkBytes: 4, lanes: 2 }).chunkAt(0, 2n),
        v2: await Promise.all(
          v2.chunks.map(async (c) => {
            const sealed = unhex(c.envelopeHex);
            const v2Key = b64(v2.start.key);
            const portable = t.openChunk(sealed, v2Key, t.nobleAesGcmChunkCipher).data;
            const native = await crypto.subtle.decrypt(
              {
                name: "AES-GCM",
                iv: sealed.subarray(17, 29),
                additionalData: sealed.subarray(0, 29),
              },
              await crypto.subtle.importKey("raw", v2Key, "AES-GCM", false, ["decrypt"]),
              sealed.subarray(29),
            );
            return [hex(portable), hex(new Uint8Array(native).subarray(8))];
          }),
        ),
      };
    },
    expected: ({ transfer: vector, v2 }) => ({
      envelope: vector.envelopeHex,
      opened: [vector.laneId, vector.seq, 0x100000, vector.plaintextHex.slice(16)],
      tamperedCode: "SVC_BAD_REQUEST",
      chunkMessage: vector.chunkMessageHex,
      stateMessage: vector.stateMessageHex,
      lastChunk: { offset: 8, length: 2 },
      v2: v2.chunks.map((c) => [c.dataHex, c.dataHex]),
    }),
  }),

  // @svc/vrf is typed by the exports the check uses, like the client. The RFC 9381 B.3 vectors
  // are proven, hashed and verified in the page; a flipped bit and a small-order key are refused.
  vrf: smokeCheck({
    input: () => fixture<VrfVectors>("packages/vrf/src/fixtures/rfc9381-vectors.json"),
    inPage(v: VrfModule, { vectors }) {
      const hex = (bytes: Uint8Array | undefined) =>
        bytes === undefined
          ? "undefined"
          : Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      const unhex = (text: string) =>
        Uint8Array.from(text.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
      return vectors.map((vector) => {
        const sk = unhex(vector.sk);
        const alpha = unhex(vector.alpha);
        const proof = v.vrfProve(sk, alpha);
        const publicKey = v.vrfPublicKey(sk);
        const flipped = proof.slice();
        flipped[50] = (flipped[50] as number) ^ 1;
        const identityKey = new Uint8Array(32);
        identityKey[0] = 1;
        return {
          pk: hex(publicKey),
          pi: hex(proof),
          beta: hex(v.vrfProofToHash(proof)),
          verified: hex(v.vrfVerify(publicKey, alpha, proof)),
          flipped: hex(v.vrfVerify(publicKey, alpha, flipped)),
          smallOrderKey: hex(v.vrfVerify(identityKey, alpha, proof)),
        };
      });
    },
    expected: ({ vectors }) =>
      vectors.map((vector) => ({
        pk: vector.pk,
        pi: vector.pi,
        beta: vector.beta,
        verified: vector.beta,
        flipped: "undefined",
        smallOrderKey: "undefined",
      })),
  }),

  // @svc/signed-note is typed by the exports the check uses, like the client. Go's sumdb/note
  // vectors are parsed, signed and opened in the page; a checkpoint is cosigned and verified; a
  // flipped signature bit is refused.
  "signed-note": smokeCheck({
    input: () =>
      fixture<SignedNoteVectors>("packages/signed-note/src/fixtures/go-note-vectors.json"),
    inPage(n: SignedNoteModule, v) {
      const code = (f: () => unknown) => {
        try {
          f();
          return "ok";
        } catch (error) {
          return (error as { code?: string }).code ?? String(error);
        }
      };
      const peter = n.parseVerifierKey(v.peterVkey);
      const enoch = n.parseVerifierKey(v.enochVkey);
      const signed = n.signNote(v.text, [n.parseSignerKey(v.peterSkey)]);
      const both = `${v.text}\n${v.peterSignatureLine}${v.enochSignatureLine}`;
      const opened = n.openNote(new TextEncoder().encode(both), [peter]);
      const flipped = signed.replace("x08go/ZJ", "x08go/ZK");
      const secret = new Uint8Array(32).fill(1);
      const checkpoint = n.formatCheckpoint({
        origin: "log.example/kt",
        size: 3n,
        rootHash: new Uint8Array(32),
      });
      const cosigner = n.parseVerifierKey(
        n.formatVerifierKey("w", n.parseSignerKey(n.formatSignerKey("w", secret)).publicKey, 0x04),
      );
      const cosigned = n.openNote(
        `${checkpoint}\n${n.cosign(checkpoint, "w", secret, 1700000000)}`,
        [cosigner],
      );
      return {
        vkey: n.formatVerifierKey(peter.name, peter.publicKey),
        signed: signed === v.signedByPeter,
        verified: opened.signatures.map((s) => s.name),
        unknown: opened.unknown.map((u) => u.name),
        bothTrusted: n.openNote(both, [peter, enoch]).signatures.map((s) => s.name),
        flipped: code(() => n.openNote(flipped, [peter])),
        cosigned: cosigned.signatures.map((s) => String(s.timestamp)),
        size: String(n.parseCheckpoint(cosigned.text).size),
      };
    },
    expected: (v) => ({
      vkey: v.peterVkey,
      signed: true,
      verified: ["PeterNeumann"],
      unknown: ["EnochRoot"],
      bothTrusted: ["PeterNeumann", "EnochRoot"],
      flipped: "NOTE_INVALID_SIGNATURE",
      cosigned: ["1700000000"],
      size: "3",
    }),
  }),
};

interface ClientModule {
  createApi(options: {
    server: string;
    fetch: typeof fetch;
    maxRetries: number;
    requestTimeoutMs: number;
    now: () => number;
  }): {
    inboxAck(address: string, msgId: string, key: Uint8Array): Promise<unknown>;
    keysCount(address: string): Promise<unknown>;
  };
}

interface KtSpecSth {
  ktOperator: { publicKey: string };
  sth: { sth: KtVerify.SthJson };
}

interface KtVectors {
  operator: { publicKey: string };
  /** The log's VRF key (format 3). */
  vrf: { publicKey: string };
  sths: KtVerify.SthJson[];
  consistency: { from: number; to: number; proof: string[] }[];
  changes: unknown[];
  proofs: Record<string, { address: string; ktProof: unknown }>;
}

interface KtWitnessed {
  note: string;
  policy: KtVerify.WitnessPolicy;
}

interface TransferSpecVector {
  transfer: {
    streamId: string;
    laneId: number;
    seq: string;
    streamKey: string;
    plaintextHex: string;
    envelopeHex: string;
    chunkMessageHex: string;
    stateMessageHex: string;
  };
}

interface TransferV2Vectors {
  start: { key: string };
  chunks: { envelopeHex: string; dataHex: string }[];
}

interface VrfVectors {
  vectors: { sk: string; pk: string; alpha: string; pi: string; beta: string }[];
}

interface VrfModule {
  vrfPublicKey(secretKey: Uint8Array): Uint8Array;
  vrfProve(secretKey: Uint8Array, alpha: Uint8Array): Uint8Array;
  vrfProofToHash(proof: Uint8Array): Uint8Array;
  vrfVerify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): Uint8Array | undefined;
}

interface SignedNoteVectors {
  peterVkey: string;
  peterSkey: string;
  enochVkey: string;
  text: string;
  peterSignatureLine: string;
  enochSignatureLine: string;
  signedByPeter: string;
}

interface SignedNoteKey {
  name: string;
  keyId: number;
  publicKey: Uint8Array;
}

interface SignedNoteModule {
  parseVerifierKey(vkey: string): SignedNoteKey;
  formatVerifierKey(name: string, publicKey: Uint8Array, type?: 0x01 | 0x04): string;
  parseSignerKey(skey: string): SignedNoteKey & { seed: Uint8Array };
  formatSignerKey(name: string, seed: Uint8Array): string;
  signNote(text: string, signers: unknown[]): string;
  openNote(
    note: Uint8Array | string,
    verifiers: unknown[],
  ): {
    text: string;
    signatures: { name: string; timestamp?: bigint }[];
    unknown: { name: string }[];
  };
  formatCheckpoint(checkpoint: { origin: string; size: bigint; rootHash: Uint8Array }): string;
  parseCheckpoint(text: string): { size: bigint };
  cosign(text: string, name: string, secretKey: Uint8Array, timestamp: number): string;
}
