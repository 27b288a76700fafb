import { createInterface } from "node:readline";
import { EXIT } from "./exit.js";
import { connectionNotes, LeftForNextListen, type ListenContext } from "./listen.js";
import { messageReport, sessionReport } from "./output.js";

const PROMPT = "> ";

/**
 * `svc chat <peer>`: each line typed is sent to `peer`; each message arriving is printed above
 * the prompt, the line being typed drawn again under it, and acknowledged once printed. Messages
 * from other addresses are printed too (with their address), since a message is acknowledged only
 * once someone could read it. The kind of session with `peer` (post-quantum or classic) is noted
 * when first known and whenever it changes. Ctrl-C, Ctrl-D (the end of input) or a signal leaves,
 * exit 0.
 */
export async function chat(context: ListenContext, peer: string): Promise<number> {
  const { client, input, output } = context;
  if (input === undefined || output === undefined) {
    throw new Error("svc chat needs standard input and output");
  }
  const { address } = await client.whoami();
  const terminal = input.isTTY === true && output.isTTY === true;
  const lines = createInterface({ input, output, prompt: PROMPT, terminal });

  /** Writes above the prompt: the prompt line is cleared, then drawn again with what was typed. */
  const above = (write: () => void) => {
    if (terminal) output.write("\r\x1b[2K");
    write();
    if (terminal) lines.prompt(true);
  };

  const stop = new AbortController();
  const leave = () => stop.abort();
  lines.on("SIGINT", leave);
  lines.on("close", leave);
  context.signal?.addEventListener("abort", leave, { once: true });
  if (context.signal?.aborted) leave();

  const notes = connectionNotes(
    { note: (line) => above(() => context.note(line)), describe: context.describe },
    address,
    () => true,
  );
  let postQuantum: boolean | undefined;
  const noteSessionKind = async () => {
    const session = await client.session(peer).catch(() => undefined);
    if (session === undefined || session.postQuantum === postQuantum) return;
    postQuantum = session.postQuantum;
    above(() => context.note(sessionReport(session).text));
  };
  const subscription = client.subscribe(
    async (message) => {
      if (stop.signal.aborted) throw new LeftForNextListen(`${message.msgId} left queued`);
      above(() =>
        context.print(messageReport(message, context.client.rememberedDeviceList() !== undefined)),
      );
      await noteSessionKind();
    },
    {
      signal: stop.signal,
      onTransport: notes.onTransport,
      onDisconnect: notes.onDisconnect,
    },
  );

  // Lines are sent one at a time, in the order typed.
  let sending: Promise<void> = Promise.resolve();
  lines.on("line", (line) => {
    if (line.trim() !== "") {
      sending = sending.then(() =>
        client.send(peer, new TextEncoder().encode(line)).then(
          () => noteSessionKind(),
          (error: unknown) => above(() => context.fail(context.describe(error))),
        ),
      );
    }
    if (terminal && !stop.signal.aborted) lines.prompt();
  });

  context.note(`chatting with ${peer} as ${address}; Ctrl-C or Ctrl-D leaves`);
  await noteSessionKind();
  if (terminal) lines.prompt();
  const stopped = new Promise<void>((resolve) =>
    stop.signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  try {
    // `closed` settles before a stop only when the server refuses the subscription: it throws.
    await Promise.race([stopped, subscription.closed]);
  } finally {
    stop.abort();
    context.signal?.removeEventListener("abort", leave);
    lines.close();
    if (terminal) output.write("\n");
    await sending;
  }
  await subscription.closed;
  return EXIT.ok;
}
