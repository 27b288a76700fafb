import { decodeBase64, encodeBase64, normalizeAddress } from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import {
  checkDeviceListStep,
  type DeviceEntry,
  type DeviceList,
  type DeviceListFields,
  deviceListHash,
  deviceListToJson,
  firstDeviceList,
  signDeviceList,
} from "@svc/protocol";
import {
  type Json,
  jsonRequest,
  registerBody,
  type TestIdentity,
  testIdentity,
} from "@svc/test-client";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const NOW = 1_763_780_000_000;
const ACCOUNT = "alice@example.org";
const PATH = `/v1/devices/${ACCOUNT}`;
const one = testIdentity(`${ACCOUNT}:1`);
const two = testIdentity(`${ACCOUNT}:2`);
/** On no list and not registered: a device the server must not let in. */
const stranger = testIdentity(`${ACCOUNT}:3`);
const foreign = testIdentity("bob@example.org:1");

const entry = (device: TestIdentity): DeviceEntry => ({
  address: device.address,
  identitySigningKey: decodeBase64(device.identitySigningKey, 32),
});
const v1 = firstDeviceList(entry(one), one.seed);
const v2Fields: DeviceListFields = {
  account: ACCOUNT,
  version: 2,
  previousHash: deviceListHash(v1),
  devices: [entry(one), entry(two)],
  signer: one.address,
};
const v2 = deviceListToJson(signDeviceList(v2Fields, one.seed)) as unknown as Json;
const registered = new Map([one, two].map((d) => [d.address, d.identitySigningKey]));

/** What every refusal may be, by status: the route's documented codes and nothing else. */
const CODES: Record<number, string[]> = {
  400: ["SVC_BAD_REQUEST", "SVC_INVALID_ADDRESS", "SVC_INVALID_DEVICE_LIST"],
  409: ["SVC_DEVICE_LIST_CONFLICT"],
  413: ["SVC_TOO_LARGE"],
};

/** An app holding version 1 of ACCOUNT's list, both devices of version 2 registered. */
async function setup() {
  const { app } = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => NOW });
  for (const device of [one, two, foreign]) {
    const res = await app.request(
      "/v1/keys/register",
      jsonRequest("POST", registerBody(device, NOW, [1])),
    );
    expect(res.status).toBe(200);
  }
  const res = await app.request(PATH, jsonRequest("POST", deviceListToJson(v1)));
  expect(res.status).toBe(200);
  const post = async (body: unknown, path = PATH) => {
    const text = typeof body === "string" ? body : (JSON.stringify(body) ?? "null");
    const answer = await app.request(path, jsonRequest("POST", text));
    return { status: answer.status, body: (await expectContract(answer, "POST", path)) as Json };
  };
  /** The stored list is still version 1, and nothing was stored after it. */
  const unchanged = async () => {
    const latest = await app.request(PATH);
    const { ktProof: _, ...served } = (await latest.json()) as Json;
    expect(served).toEqual(deviceListToJson(v1));
    expect((await app.request(`${PATH}/versions/2`)).status).toBe(404);
  };
  return { app, post, unchanged };
}

/** A refusal with a code its status allows; a conflict names the stored version. */
function expectRefusal(answer: { status: number; body: Json }): void {
  expect(Object.keys(CODES)).toContain(String(answer.status));
  expect(CODES[answer.status]).toContain(answer.body.code);
  if (answer.status === 409) expect(answer.body.currentVersion).toBe(1);
}

const bytes = (n: number, fill = 7) => encodeBase64(new Uint8Array(n).fill(fill));
const device = (address: string, key = bytes(32)) => ({ address, identitySigningKey: key });
const v2Devices = v2.devices as Json[];
const seventeen = Array.from({ length: 17 }, (_, i) =>
  device(`${ACCOUNT}:${String(i + 1).padStart(2, "0")}`),
);

/** Hostile values for each member of a list, beside arbitrary JSON. */
const HOSTILE: Record<string, unknown[]> = {
  account: ["", "bob@example.org", `${ACCOUNT}:1`, "a".repeat(10_000), "\u0000", 7],
  version: [0, -1, 1, 3, 1.5, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), "2", 1e308, null],
  previousHash: ["", bytes(31), bytes(33), bytes(32, 0), "!!!!", "AAA", "A".repeat(10_000)],
  devices: [
    [],
    [...v2Devices].reverse(),
    [v2Devices[0], v2Devices[0]],
    seventeen,
    [v2Devices[0], device(foreign.address, foreign.identitySigningKey)],
    [v2Devices[0], device(`${ACCOUNT}:2`, bytes(31))],
    [v2Devices[0], device(`${ACCOUNT}:2`, "not base64")],
    [v2Devices[0], { ...device(`${ACCOUNT}:2`), extra: 1 }],
    [v2Devices[0], device("a".repeat(10_000))],
    [v2Devices[0], device(`${ACCOUNT}:2`)],
    [v2Devices[0], device(stranger.address, stranger.identitySigningKey)],
    [v2Devices[0], "alice@example.org:2"],
  ],
  signer: ["", two.address, stranger.address, foreign.address, "a".repeat(10_000)],
  signature: ["", bytes(63), bytes(65), bytes(64), "====", "a".repeat(10_000)],
};

/** Version 2 with one member replaced by a hostile value or arbitrary JSON, or dropped. */
const mutatedJson = fc
  .constantFrom(...Object.keys(HOSTILE), "extra")
  .chain((member) =>
    fc
      .oneof(fc.constantFrom(...(HOSTILE[member] ?? [1])), fc.jsonValue(), fc.constant(undefined))
      .map((value) => {
        const { [member]: _, ...rest } = v2;
        return value === undefined ? rest : { ...rest, [member]: value };
      }),
  )
  .filter((body) => JSON.stringify(body) !== JSON.stringify(v2));

/**
 * Lists properly signed (by a device of version 1, by one of version 2 only, or by a stranger)
 * that break a rule: another version, another previous hash, another account, unregistered or
 * foreign devices, the same devices as version 1. The one valid next version is left out.
 */
const signedBadLists = fc
  .record({
    version: fc.oneof(fc.constantFrom(1, 2, 3, 2 ** 53 - 1), fc.integer({ min: 1 })),
    previousHash: fc.oneof(
      fc.constant(v2Fields.previousHash),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
    ),
    account: fc.constantFrom(ACCOUNT, "bob@example.org"),
    devices: fc.subarray([one, two, stranger, foreign], { minLength: 1 }),
    signer: fc.constantFrom(one, two, stranger),
    claimed: fc.constantFrom(one, two, stranger),
  })
  .map(({ signer, claimed, devices, ...fields }) => {
    const list: DeviceListFields = {
      ...fields,
      devices: devices.map(entry).sort((a, b) => (a.address < b.address ? -1 : 1)),
      signer: claimed.address,
    };
    try {
      return signDeviceList(list, signer.seed);
    } catch {
      return undefined; // a list breaking its own rules cannot be signed at all
    }
  })
  .filter((list): list is DeviceList => list !== undefined && !acceptable(list));

/** Whether the server ought to store `list` as the next version after version 1. */
function acceptable(list: DeviceList): boolean {
  try {
    checkDeviceListStep(v1, list);
  } catch {
    return false;
  }
  return (
    list.account === ACCOUNT &&
    list.devices.every(
      (d) => registered.get(d.address) === encodeBase64(d.identitySigningKey as Uint8Array),
    )
  );
}

describe("device list write fuzzing", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("answers each named hostile body with its documented code, storing nothing", async () => {
    const { post, unchanged } = await setup();
    const cases: Array<[string, unknown, number, string]> = [
      ["not JSON", "{version: 2", 400, "SVC_BAD_REQUEST"],
      ["a JSON array", "[]", 400, "SVC_BAD_REQUEST"],
      ["no members", {}, 400, "SVC_BAD_REQUEST"],
      ["an unknown member", { ...v2, extra: 1 }, 400, "SVC_BAD_REQUEST"],
      ["version 0", { ...v2, version: 0 }, 400, "SVC_BAD_REQUEST"],
      ["version -1", { ...v2, version: -1 }, 400, "SVC_BAD_REQUEST"],
      ["version 2^53", { ...v2, version: 2 ** 53 }, 400, "SVC_BAD_REQUEST"],
      ["version 1.5", { ...v2, version: 1.5 }, 400, "SVC_BAD_REQUEST"],
      ["bad base64", { ...v2, signature: "!!!!" }, 400, "SVC_INVALID_DEVICE_LIST"],
      ["a short hash", { ...v2, previousHash: bytes(31) }, 400, "SVC_INVALID_DEVICE_LIST"],
      [
        "unsorted devices",
        { ...v2, devices: [...v2Devices].reverse() },
        400,
        "SVC_INVALID_DEVICE_LIST",
      ],
      ["17 devices", { ...v2, devices: seventeen }, 400, "SVC_INVALID_DEVICE_LIST"],
      ["another signature", { ...v2, signature: bytes(64) }, 400, "SVC_INVALID_DEVICE_LIST"],
      ["another account", { ...v2, account: "bob@example.org" }, 400, "SVC_INVALID_DEVICE_LIST"],
      ["oversize", { ...v2, signer: "a".repeat(17 * 1024) }, 413, "SVC_TOO_LARGE"],
    ];
    for (const [what, body, status, code] of cases) {
      const answer = await post(body);
      expect({ what, status: answer.status, code: answer.body.code }).toEqual({
        what,
        status,
        code,
      });
    }
    for (const [path, code] of [
      ["/v1/devices/bob@example.org", "SVC_INVALID_DEVICE_LIST"],
      [`/v1/devices/${encodeURIComponent(" ")}`, "SVC_INVALID_ADDRESS"],
      [`/v1/devices/${"a".repeat(300)}`, "SVC_INVALID_ADDRESS"],
    ] as const) {
      const answer = await post(v2, path);
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({
        path,
        status: 400,
        code,
      });
    }
    await unchanged();
  });

  it("never answers a mutated, arbitrary or hostile body with anything but a documented 4xx", async () => {
    const { post, unchanged } = await setup();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: mutatedJson, weight: 4 },
          { arbitrary: signedBadLists.map((list) => deviceListToJson(list)), weight: 3 },
          { arbitrary: fc.jsonValue(), weight: 1 },
          { arbitrary: fc.string({ maxLength: 64 }), weight: 1 },
        ),
        async (body) => expectRefusal(await post(body)),
      ),
      { numRuns: 250 },
    );
    await unchanged();
  }, 120_000);

  it("refuses the valid next version at any other account's path", async () => {
    const { post, unchanged } = await setup();
    await fc.assert(
      fc.asyncProperty(
        // "." and ".." are dot segments: URL parsing removes them before any route sees them.
        fc.string({ minLength: 1, maxLength: 40 }).filter((a) => a !== "." && a !== ".."),
        async (account) => {
          fc.pre(!sameAccount(account));
          const answer = await post(v2, `/v1/devices/${encodeURIComponent(account)}`);
          expect(answer.status).toBeGreaterThanOrEqual(400);
          expectRefusal(answer);
        },
      ),
      { numRuns: 150 },
    );
    await unchanged();
  }, 60_000);

  it("answers hostile version strings 400 or 404 (or version 1 itself), never a 5xx", async () => {
    const { app } = await setup();
    const hostile = fc.oneof(
      fc.constantFrom(
        "0",
        "-1",
        "1.5",
        "1e3",
        "0x10",
        "+1",
        " 1",
        "9007199254740992",
        "99999999999999999999",
        "NaN",
        "Infinity",
        "01",
        "%00",
        "2",
      ),
      fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s !== "." && s !== ".."),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (version) => {
        const path = `${PATH}/versions/${encodeURIComponent(version)}`;
        const res = await app.request(path);
        const body = (await expectContract(res, "GET", path)) as Json;
        // Only version 1 is stored: a string that reads as 1 is answered with it.
        if (res.status === 200) expect(body).toEqual(deviceListToJson(v1));
        else {
          expect([400, 404]).toContain(res.status);
          expect(body.code).toBe(res.status === 400 ? "SVC_BAD_REQUEST" : "SVC_NO_DEVICE_LIST");
        }
      }),
      { numRuns: 150 },
    );
    const first = await app.request(`${PATH}/versions/1`);
    expect(await first.json()).toEqual(deviceListToJson(v1));
  }, 60_000);
});

/** Whether `address` names ACCOUNT once normalized (then the valid list would be stored). */
function sameAccount(address: string): boolean {
  try {
    return normalizeAddress(address) === ACCOUNT;
  } catch {
    return false;
  }
}
