import { createReadStream } from "node:fs";
import { type IncomingMessage, request } from "node:http";
import { pipeline } from "node:stream/promises";
import { runSender } from "./run-side.js";

/** The raw POST's sender process: the file streamed as one node:http request body. */
await runSender(async ({ url = "", file, bytes }) => async () => {
  const req = request(url, {
    method: "POST",
    headers: { "Content-Type": "application/octet-stream", "Content-Length": bytes },
  });
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    req.once("response", resolve).once("error", reject);
  });
  await pipeline(createReadStream(file), req);
  const res = await answered;
  res.resume();
  if (res.statusCode !== 200) throw new Error(`raw POST answered ${res.statusCode}`);
});
