import { type Database, executePreparedRows, plainBytes } from "@svc/db";
import { LruMap } from "@svc/node-kit";
import { type VrfProver, vrfProver } from "@svc/vrf";
import { sql } from "drizzle-orm";
import { sodiumArithmetic } from "./sodium-arithmetic.js";

/** An address's map key (the first 32 bytes of its VRF output) and the VRF proof of it. */
export interface AddressIndex {
  index: Uint8Array;
  proof: Uint8Array;
}

/** The map key is the first 32 bytes of the VRF output. */
const INDEX_BYTES = 32;
const utf8 = new TextEncoder();

/**
 * The VRF indexes of addresses (docs/protocol.md, private index). Proving costs milliseconds of
 * CPU, so each logged address's index is computed once and kept in `kt_vrf` (written with its
 * first leaf); others (absence proofs, /v1/kt/vrf) are computed and kept in memory only, a
 * bounded number, so that lookups of made-up addresses store nothing.
 */
export class VrfIndexes {
  readonly publicKey: Uint8Array;
  readonly #prover: VrfProver;
  readonly #recent: LruMap<string, AddressIndex>;

  constructor(secretKey: Uint8Array, capacity = 10_000) {
    this.#prover = vrfProver(secretKey, sodiumArithmetic());
    this.publicKey = this.#prover.publicKey;
    this.#recent = new LruMap(capacity);
  }

  /** Proves `address`'s index (no storage). */
  prove(address: string): AddressIndex {
    const { proof, beta } = this.#prover.proveWithOutput(utf8.encode(address));
    return { index: beta.slice(0, INDEX_BYTES), proof };
  }

  /** The index of each address: kept in memory, stored, or proved now (then kept in memory). */
  async lookup(db: Database, addresses: readonly string[]): Promise<AddressIndex[]> {
    const found = new Map<string, AddressIndex>();
    for (const address of addresses) {
      const known = this.#recent.peek(address);
      if (known !== undefined) found.set(address, known);
    }
    const missing = [...new Set(addresses.filter((a) => !found.has(a)))];
    if (missing.length > 0) {
      const rows = await executePreparedRows<{
        address: string;
        vrf_index: Uint8Array;
        proof: Uint8Array;
      }>(
        db,
        sql`select address, vrf_index, proof from kt_vrf where address = any(${sql.param(missing)}::text[])`,
      );
      const stored = new Map(
        rows.map((row) => [
          row.address,
          { index: plainBytes(row.vrf_index), proof: plainBytes(row.proof) },
        ]),
      );
      for (const address of missing) {
        const entry = stored.get(address) ?? this.prove(address);
        found.set(address, entry);
        this.#recent.set(address, entry);
      }
    }
    return addresses.map((address) => found.get(address) as AddressIndex);
  }
}
