import { join } from "node:path";
import { sendFile } from "@svc/transfer-peer";
import { runSender } from "./run-side.js";
import { openIdentity } from "./svc-identity.js";

/** svc's sender process: an identity of its own, sendFile with the row's lanes and chunk size. */
await runSender(async ({ dir, server = "", url = "", address = "", file, lanes, chunkBytes }) => {
  const client = await openIdentity(server, join(dir, "sender-identity"), "sender");
  return async () => {
    const transfer = sendFile(file, { client, to: address, peer: url, lanes, chunkBytes });
    await transfer.done;
  };
});
