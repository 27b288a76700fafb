import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";

interface SigningVector {
  label: string;
  method: string;
  path: string;
  body: Record<string, unknown>;
}

const vectors = JSON.parse(
  readFileSync(
    new URL(
      "../../../../../../packages/protocol/src/fixtures/signing-vectors.json",
      import.meta.url,
    ),
    "utf8",
  ),
) as SigningVector[];
const SIGNED_AT = 1_763_780_000_000;

function vector(label: string): SigningVector {
  const found = vectors.find((v) => v.label === label);
  if (!found) throw new Error(`no signing vector ${label}`);
  return found;
}

describe("the inbox signing vectors (docs/protocol.md section 8 worked example)", {
  timeout: 60_000,
}, () => {
  it("are accepted, in order, by a server whose clock reads their signedAt", async () => {
    const svc = await createTestApp({}, { now: () => SIGNED_AT });
    const replay = async (label: string) => {
      const { method, path, body } = vector(label);
      const res = await svc.app.request(path, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status, label).toBe(200);
      return expectContract(res, method, path);
    };

    expect(await replay("inbox.register")).toEqual({ ok: true });
    expect(await replay("inbox.deposit")).toEqual({
      idempotent: false,
      expiresAt: 1_763_866_400_000,
    });
    expect(await replay("inbox.deposit.from")).toEqual({ idempotent: true });
    expect(await replay("inbox.fetch")).toEqual({
      items: [
        {
          msgId: "7b3fa4f005ec9fc31c69603c6988de3584d97ab78289695f0340ec9f088c9069",
          ciphertext: "AgECAwQ=",
          receivedAt: SIGNED_AT,
          expiresAt: 1_763_866_400_000,
        },
      ],
      nextCursor: null,
    });
    expect(await replay("inbox.ack")).toEqual({ ok: true });
    expect(await replay("inbox.unregister")).toEqual({ ok: true });
  });
});
