// A module that no browser can load: bundleForBrowser must refuse it.
import { createHash } from "node:crypto";

export const digest = createHash("sha256").update("x").digest("hex");
