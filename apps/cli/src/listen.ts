import { CodedError } from "@svc/canonical";
import type { SubscribeOptions, SvcClient } from "@svc/client";
import { EXIT } from "./exit.js";
import { messageReport, type Problem, type Report } from "./output.js";
import type { Progress } from "./progress.js";

export interface ListenContext {
  client: SvcClient;
  print(report: Report): void;
  /** A status line for people (stderr; nothing with --json). */
  note(line: string): void;
  fail(problem: Problem): void;
  progress: Progress;
  /** Stops listening with exit 0 (SIGINT/SIGTERM in the real CLI). */
  signal: AbortSignal | undefined;
  /** A client error as a code and a sentence for people. */
  describe(error: unknown): Problem;
  /** Standard input and output as streams (chat's terminal). */
  input: (NodeJS.ReadableStream & { isTTY?: boolean }) | undefined;
  output: (NodeJS.WritableStream & { isTTY?: boolean }) | undefined;
}

/**
 * Thrown by the message handler for a message that arrives once listening is over (after --count
 * messages, the timeout or a signal): the client keeps it unacknowledged, for the next listen.
 */
export class LeftForNextListen extends CodedError<"LEFT_QUEUED"> {
  override readonly name = "LeftForNextListen";
  constructor(message: string) {
    super("LEFT_QUEUED", message);
  }
}

/**
 * `svc listen`: the client's subscription drains the inbox, then stays on a live bridge. Each
 * message is printed before the handler returns, so it is acknowledged only once printed.
 */
export async function listen(
  context: ListenContext,
  options: {
    count: number | undefined;
    timeoutMs: number | undefined;
    wait: boolean;
    drain: boolean;
  },
): Promise<number> {
  const { client } = context;
  if (options.drain) {
    const signal = context.signal;
    const draining = client.receive({
      onMessage: (message) =>
        context.print(messageReport(message, client.rememberedDeviceList() !== undefined)),
      ...(signal ? { signal } : {}),
    });
    await context.progress("fetching queued messages", draining).catch((error: unknown) => {
      if (!signal?.aborted) throw error;
    });
    return EXIT.ok;
  }
  const { address } = await client.whoami();
  const stop = new AbortController();
  let ending: "count" | "timeout" | "signal" | undefined;
  const end = (why: NonNullable<typeof ending>) => {
    ending ??= why;
    stop.abort();
  };
  let received = 0;
  let connected: () => void = () => {};
  const live = new Promise<void>((resolve) => {
    connected = resolve;
  });
  let unreachable: { error: unknown } | undefined;
  const notes = connectionNotes(context, address, (error) => {
    if (options.wait) return true;
    unreachable = { error };
    stop.abort();
    return false;
  });

  const subscription = client.subscribe(
    (message) => {
      if (ending !== undefined) throw new LeftForNextListen(`${message.msgId} left queued`);
      context.print(messageReport(message, client.rememberedDeviceList() !== undefined));
      received++;
      if (received === options.count) end("count");
    },
    {
      signal: stop.signal,
      onTransport(transport) {
        connected();
        notes.onTransport(transport);
      },
      onDisconnect: notes.onDisconnect,
    },
  );
  const stopped = new Promise<void>((resolve) =>
    stop.signal.addEventListener("abort", () => resolve()),
  );
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => end("timeout"), options.timeoutMs);
  const onSignal = () => end("signal");
  context.signal?.addEventListener("abort", onSignal, { once: true });
  if (context.signal?.aborted) onSignal();
  try {
    await context.progress(
      "fetching queued messages",
      Promise.race([live, stopped, subscription.closed]),
    );
    // `closed` settles early only when the subscription fails (unreachable, refused): it throws.
    await Promise.race([stopped, subscription.closed]);
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener("abort", onSignal);
    stop.abort();
  }
  // Waits for the last message's acknowledgement.
  await subscription.closed;
  if (unreachable !== undefined) {
    const { code, message } = context.describe(unreachable.error);
    context.fail({ code, message: `${message} (svc listen --wait waits for the server)` });
    return EXIT.failure;
  }
  if (ending === "timeout") {
    const seconds = (options.timeoutMs as number) / 1000;
    const got = options.count === undefined ? `${received}` : `${received} of ${options.count}`;
    const noun = (options.count ?? received) === 1 ? "message" : "messages";
    context.fail({
      code: "TIMEOUT",
      message: `listen timed out after ${seconds} s with ${got} ${noun}`,
    });
    return EXIT.timeout;
  }
  return EXIT.ok;
}

/**
 * The status lines of a subscription (stderr, none with --json): one when it is connected, one
 * when the server is lost and one when it is back, not one per attempt. `unreachableAtStart`
 * decides whether a server that cannot be reached before the first connection is waited for.
 */
export function connectionNotes(
  context: Pick<ListenContext, "note" | "describe">,
  address: string,
  unreachableAtStart: (error: unknown) => boolean,
): Required<Pick<SubscribeOptions, "onTransport" | "onDisconnect">> {
  let state: "starting" | "waiting" | "connected" | "disconnected" = "starting";
  return {
    onTransport(transport) {
      context.note(
        state === "disconnected"
          ? `reconnected (${transport} bridge)`
          : `listening as ${address} (${transport} bridge)`,
      );
      state = "connected";
    },
    onDisconnect(error) {
      const why = context.describe(error).message;
      if (state === "connected") {
        context.note(`disconnected, retrying: ${why}`);
        state = "disconnected";
      } else if (unreachableAtStart(error)) {
        context.note(`waiting for the server: ${why}`);
        state = "waiting";
      }
    },
  };
}
