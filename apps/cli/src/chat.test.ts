import { join } from "node:path";
import { createTestStorage, until } from "@svc/db/testing";
import { migrations } from "@svc/prekey-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit.js";
import { built, spawnSvcOnTerminal } from "./test-support/processes.js";
import { type Closer, startTestServer, svc, tempDir } from "./test-support/server.js";

beforeAll(async () => (await createTestStorage({ migrations })).close());

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The screen's text without the escape sequences that move the cursor and erase. */
const CURSOR_MOVE = new RegExp(`${String.fromCharCode(0x1b)}\\[\\d*[A-Za-z]`, "g");
const withoutCursorMoves = (text: string) => text.replace(CURSOR_MOVE, "");

/** alice and bob registered, and `svc chat bob:1` started as alice on a pseudo terminal. */
async function chatting() {
  const { url } = await startTestServer(closers);
  const homes = await tempDir(closers, "svc-chat-");
  const as = (name: string, ...argv: string[]) => svc(url, join(homes, name), argv);
  expect((await as("alice", "init", "--address", "alice:1")).code).toBe(EXIT.ok);
  expect((await as("bob", "init", "--address", "bob:1")).code).toBe(EXIT.ok);
  const chat = spawnSvcOnTerminal(closers, ["chat", "bob:1"], {
    SVC_SERVER: url,
    SVC_HOME: join(homes, "alice"),
  });
  const screen = () => chat.out.stdout;
  const type = (keys: string) => chat.child.stdin?.write(keys);
  await until(() => screen().includes("svc: listening as alice:1"), 30_000);
  return { as, chat, screen, type };
}

describe.skipIf(!built)("svc chat on a terminal", () => {
  it("sends lines typed, prints arrivals above the prompt with the typed line kept, Ctrl-C leaves with 0", async () => {
    const { as, chat, screen, type } = await chatting();
    expect(screen()).toContain("svc: chatting with bob:1 as alice:1; Ctrl-C or Ctrl-D leaves\r\n");

    type("hello bob\r");
    await until(() => screen().includes("svc: bob:1: post-quantum session (PQXDH"), 15_000);
    type("half a li");
    await until(() => screen().includes("half a li"), 10_000);
    expect((await as("bob", "send", "alice:1", "hi alice")).code).toBe(EXIT.ok);
    expect((await as("carol", "init", "--address", "carol:1")).code).toBe(EXIT.ok);
    expect((await as("carol", "send", "alice:1", "it is carol")).code).toBe(EXIT.ok);
    // Each arrival: the prompt line erased, the message, then the prompt with what was typed.
    await until(() => screen().includes("carol:1: it is carol"), 15_000);
    expect(screen()).toContain("\r\x1b[2Kbob:1: hi alice\r\n");
    expect(withoutCursorMoves(screen())).toContain("bob:1: hi alice\r\n> half a li");
    expect(withoutCursorMoves(screen())).toContain("carol:1: it is carol\r\n> half a li");
    type("ne\r");

    const got: string[] = [];
    await until(async () => {
      const drained = await as("bob", "listen", "--drain");
      got.push(...drained.stdout);
      return got.length >= 2;
    }, 15_000);
    expect(got).toEqual(["alice:1: hello bob", "alice:1: half a line"]);

    type("\x03");
    expect(await chat.exited).toBe(EXIT.ok);
    expect(screen()).not.toMatch(/ {4}at /);
    // What arrived was acknowledged once shown: nothing is left for alice.
    expect((await as("alice", "listen", "--drain")).stdout).toEqual([]);
  }, 90_000);

  it("Ctrl-D on an empty line leaves with 0", async () => {
    const { chat, type } = await chatting();
    type("\x04");
    expect(await chat.exited).toBe(EXIT.ok);
  }, 60_000);
});
