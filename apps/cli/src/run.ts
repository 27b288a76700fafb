import { SvcClient, SvcError } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import {
  type CommandArgs,
  type CommandName,
  commandUsage,
  parseSvcArgs,
  type SvcArgs,
  USAGE,
} from "./args.js";
import { chat } from "./chat.js";
import { UsageError } from "./command-line.js";
import { EXIT } from "./exit.js";
import { describeFailure, describeWarning } from "./failure.js";
import { findGroup, runGroup } from "./groups.js";
import { LeftForNextListen, type ListenContext, listen } from "./listen.js";
import {
  devicesReport,
  identityReport,
  keysReport,
  ktReport,
  problemLine,
  pushSubscribedReport,
  pushUnsubscribedReport,
  pushVapidReport,
  safetyNumberReport,
  sentReport,
  sessionReport,
  trustReport,
} from "./output.js";
import { SVC } from "./programs.js";
import { type Progress, silentProgress } from "./progress.js";
import { withRegistrationHint } from "./registration-hint.js";
import { readMessage } from "./stdin.js";

export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Where SVC_SERVER, SVC_HOME, the per-user directory and the SVC_* settings of svc transfer
   * receive and svc kt witness come from; default process.env. */
  env?: Record<string, string | undefined>;
  /** Ends `listen` with exit 0 (SIGINT/SIGTERM in the real CLI). */
  signal?: AbortSignal;
  /** Shown on slow work without --json: the real CLI's spinner when stderr is a terminal. */
  progress?: Progress;
  /** Standard input: `send`'s message when read from stdin, `chat`'s lines. */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Standard output as a stream: the terminal `chat` keeps its prompt on. */
  output?: NodeJS.WritableStream & { isTTY?: boolean };
  /** stderr when it is a terminal: where svc transfer send draws its progress bar. */
  terminal?: { write(chunk: string): unknown } | undefined;
}

/** `svc <argv>`; resolves to the exit status (EXIT). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const group = findGroup(argv);
  if (group) return runGroup(group.group, { ...SVC, name: `svc ${group.group}` }, group.rest, io);
  let args: SvcArgs;
  try {
    args = parseSvcArgs(argv, io.env ?? process.env);
    if (args.command === "send") args = { ...args, text: await sendText(args.text, io.input) };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const usage = error.command === undefined ? USAGE : commandUsage(error.command as CommandName);
    io.stderr(`svc: ${error.message}\n\n${usage}`);
    return EXIT.usage;
  }
  if (args.command === "help") {
    io.stdout(args.text);
    return EXIT.ok;
  }
  const { server, home, json } = args;
  const warn = (error: unknown) => {
    if (error instanceof LeftForNextListen) return;
    io.stderr(problemLine("warning", describeWarning(error, server, home), json));
  };
  let client: SvcClient | undefined;
  try {
    client = await SvcClient.open({
      server,
      store: fileStore(home),
      kt: args.kt,
      ...nodeClientOptions(),
      onError: warn,
    });
    return await runCommand(args, {
      client,
      print: (report) => io.stdout(json ? JSON.stringify(report.json) : report.text),
      note: (line) => {
        if (!json) io.stderr(`svc: ${line}`);
      },
      fail: (problem) => io.stderr(problemLine("error", problem, json)),
      progress: json ? silentProgress : (io.progress ?? silentProgress),
      signal: io.signal,
      describe: (error) => describeWarning(error, server, home),
      input: io.input,
      output: io.output,
    });
  } catch (error) {
    const failure = describeFailure(error, server, home);
    if (failure === undefined) throw error;
    io.stderr(problemLine("error", failure, json));
    return failure.exit;
  } finally {
    await client?.close();
  }
}

const utf8 = new TextEncoder();
const STOPPED = Symbol("stopped");

/**
 * A link's wait, ended by SIGINT or SIGTERM: one line, and the caller exits 130. The code shown
 * is void then; a new device stays registered and asks again with a new code.
 */
async function untilStopped<T>(
  context: ListenContext,
  waiting: Promise<T>,
): Promise<T | typeof STOPPED> {
  try {
    return await waiting;
  } catch (error) {
    if (!context.signal?.aborted) throw error;
    context.fail({
      code: "INTERRUPTED",
      message: "stopped by a signal before the link was done; its code is void",
    });
    return STOPPED;
  }
}

/** One verb of the client, its result printed. */
async function runCommand(args: CommandArgs, context: ListenContext): Promise<number> {
  const { client, print, progress } = context;
  switch (args.command) {
    case "init": {
      if ("link" in args) {
        const linking = client.linkDevice(args.address, args.link, {
          ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }),
          ...(context.signal ? { signal: context.signal } : {}),
        });
        const list = await untilStopped(context, progress(`linking ${args.address}`, linking));
        if (list === STOPPED) return EXIT.interrupted;
        print(devicesReport(list));
        break;
      }
      const identity = await progress(`registering ${args.address}`, client.init(args.address));
      print(identityReport(identity, "registered keys and inbox:"));
      break;
    }
    case "devices link": {
      const approving = client.approveLink({
        ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }),
        ...(context.signal ? { signal: context.signal } : {}),
        onCode: (code, expiresAt) =>
          print({
            json: { code, expiresAt },
            text: `code: ${code}\n(type it on the new device: svc init --address <account>:<n> --link ${code}; good until ${new Date(expiresAt).toISOString()})`,
          }),
      });
      const linked = await untilStopped(context, approving);
      if (linked === STOPPED) return EXIT.interrupted;
      print({
        json: { ...linked },
        text: `linked ${linked.linked} (version ${linked.version})`,
      });
      break;
    }
    case "devices list": {
      const account = args.account ?? (await client.ownAccount());
      const list = await progress(
        `fetching the device list of ${account}`,
        client.deviceList(account),
      );
      if (list === undefined) {
        throw new SvcError("SVC_NO_DEVICE_LIST", `${account} has no device list`, { status: 404 });
      }
      print(devicesReport(list));
      break;
    }
    case "devices remove":
      print(
        devicesReport(
          await progress(`removing ${args.address}`, client.removeDevice(args.address)),
        ),
      );
      break;
    case "whoami":
      print(identityReport(await client.whoami()));
      break;
    case "push subscribe": {
      const subscription = {
        endpoint: args.endpoint,
        keys: { p256dh: args.p256dh, auth: args.auth },
      };
      await progress("subscribing", client.subscribePush(subscription));
      print(pushSubscribedReport(args.endpoint));
      break;
    }
    case "push unsubscribe": {
      const { removed } = await progress("unsubscribing", client.unsubscribePush(args.endpoint));
      print(pushUnsubscribedReport(removed));
      break;
    }
    case "push vapid":
      print(pushVapidReport(await progress("asking the server", client.pushVapidKey())));
      break;
    case "send": {
      const sent = withRegistrationHint(
        client,
        args.to,
        client.send(args.to, utf8.encode(args.text ?? "")),
      );
      print(sentReport(args.to, await progress(`sending to ${args.to}`, sent)));
      break;
    }
    case "listen":
      return listen(context, args);
    case "chat":
      return chat(context, args.address);
    case "keys status":
      print(keysReport(await progress("asking the server", client.keysStatus())));
      break;
    case "kt verify": {
      const verified = client.verifyKt(args.address);
      print(ktReport(args.address, await progress(`verifying ${args.address}`, verified)));
      break;
    }
    case "safety-number":
      print(safetyNumberReport(await client.safetyNumber(args.address)));
      break;
    case "session":
      print(sessionReport(await client.session(args.address)));
      break;
    case "trust": {
      const trusted = client.trust(args.address);
      print(trustReport(await progress(`fetching the keys of ${args.address}`, trusted)));
      break;
    }
  }
  return EXIT.ok;
}

/** The text to send: the argument, else stdin when it is "-" or stdin is not a terminal. */
async function sendText(
  text: string | undefined,
  input: CliIo["input"],
): Promise<string | undefined> {
  if (text !== undefined && text !== "-") return text;
  if (input === undefined || (text === undefined && input.isTTY)) {
    throw new UsageError("svc send takes <address> <text>, or - to read it from stdin", "send");
  }
  return readMessage(input as AsyncIterable<Uint8Array>);
}
