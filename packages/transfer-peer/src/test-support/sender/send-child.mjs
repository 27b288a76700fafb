// A sender in its own process, for tests that kill it or measure its memory. It runs the built
// package (dist): build @svc/transfer-peer first. Argument: JSON of
// { server, home, to, peer, path, journal, lanes?, chunkBytes? }. Writes JSON lines to stdout:
// {started}, {progress}, then {done, rss} or {error}.
import { SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import { SendJournal, sendFile } from "@svc/transfer-peer";

const config = JSON.parse(process.argv[2] ?? "{}");
const write = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const client = await SvcClient.open({
  server: config.server,
  store: fileStore(config.home),
  ...nodeClientOptions(),
});
const route = { to: config.to, peer: config.peer };
const journal = new SendJournal(config.journal);
const rss = { baseline: process.memoryUsage.rss(), max: 0 };
const sampler = setInterval(() => {
  rss.max = Math.max(rss.max, process.memoryUsage.rss());
}, 50);
try {
  const transfer = sendFile(config.path, {
    client,
    to: config.to,
    peer: config.peer,
    lanes: config.lanes,
    chunkBytes: config.chunkBytes,
    resume: await journal.lookup(config.path, route),
  });
  transfer.on("started", async (stream) => {
    await journal.save(config.path, route, stream);
    write({ started: stream.streamId });
  });
  transfer.on("progress", ({ bytes, total }) => write({ progress: bytes, total }));
  const result = await transfer.done;
  await journal.remove(config.path, route);
  rss.max = Math.max(rss.max, process.memoryUsage.rss());
  write({ done: result, rss });
} catch (error) {
  write({ error: String(error?.stack ?? error) });
  process.exitCode = 1;
} finally {
  clearInterval(sampler);
  await client.close();
}
