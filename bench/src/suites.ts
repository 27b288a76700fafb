import { bridgesSuite } from "./bridges.js";
import { inboxSuite } from "./inbox.js";
import { ktSuite } from "./kt.js";
import { prekeysSuite } from "./prekeys.js";

/** One entry per suite file; each prints its own table(s). */
export const suites: Record<string, () => Promise<void>> = {
  prekeys: prekeysSuite,
  inbox: inboxSuite,
  bridges: bridgesSuite,
  kt: ktSuite,
};
