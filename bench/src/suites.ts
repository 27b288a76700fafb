import { bridgesSuite } from "./bridges/bridges.js";
import { fanOutSuite } from "./devices/fan-out.js";
import { e2eSuite } from "./e2e/e2e.js";
import { inboxSuite } from "./inbox/inbox.js";
import { kemBundlesSuite } from "./keys/kem-bundles.js";
import { prekeysSuite } from "./keys/prekeys.js";
import { ktSuite } from "./kt/kt.js";
import { loadSuite } from "./load/load.js";
import { memorySuite } from "./memory/memory.js";
import { pushWakeUpsSuite } from "./push/deposit-wakeups.js";
import { pushSuite } from "./push/push.js";
import { ratchetSuite } from "./ratchet/ratchet.js";
import { transferSuite } from "./transfer/transfer.js";

/** One entry per suite file; each prints its own table(s). */
export const suites: Record<string, () => Promise<void>> = {
  prekeys: prekeysSuite,
  "kem-bundles": kemBundlesSuite,
  inbox: inboxSuite,
  bridges: bridgesSuite,
  kt: ktSuite,
  ratchet: ratchetSuite,
  e2e: e2eSuite,
  "fan-out": fanOutSuite,
  transfer: transferSuite,
  load: loadSuite,
  memory: memorySuite,
  push: pushSuite,
  "wake-ups": pushWakeUpsSuite,
};
