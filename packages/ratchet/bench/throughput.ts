/**
 * Messages per second on one core: `npx tsx --conditions=source packages/ratchet/bench/throughput.ts`
 * from the repository root. Not a test: timings depend on the machine.
 */
import { createIdentity } from "../src/identity.js";
import { initiateSession, respondToFirstMessage, Session } from "../src/session.js";
import { makeResponder } from "../src/test-support/parties.js";

const MESSAGE = new Uint8Array(1024).fill(0x61);

async function pair(): Promise<{ alice: Session; bob: Session }> {
  const responder = makeResponder("bench-bob");
  const start = await initiateSession(createIdentity(), responder.bundle(), MESSAGE);
  const { session: bob } = await respondToFirstMessage(
    responder.identity,
    responder.store,
    start.envelope,
  );
  start.session.decrypt(bob.encrypt(MESSAGE));
  return { alice: start.session, bob };
}

/** One direction, one chain: the symmetric ratchet only. */
function symmetric(alice: Session, bob: Session, count: number): void {
  for (let i = 0; i < count; i++) bob.decrypt(alice.encrypt(MESSAGE));
}

/** Turns taken in strict alternation: every message starts a DH-ratchet step. */
function pingPong(alice: Session, bob: Session, count: number): void {
  for (let i = 0; i < count; i++) {
    const [from, to] = i % 2 === 0 ? [alice, bob] : [bob, alice];
    to.decrypt(from.encrypt(MESSAGE));
  }
}

/**
 * Rate per CPU-second of this process (process.cpuUsage), which other load on the machine
 * disturbs far less than wall time; wall time is printed beside it.
 */
function rate(name: string, count: number, run: (n: number) => void): void {
  run(Math.ceil(count / 10));
  const cpu = process.cpuUsage();
  const start = performance.now();
  run(count);
  const wall = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(
    `${name}: ${Math.round(count / cpuSeconds)}/s per CPU-second, ` +
      `${Math.round(count / wall)}/s wall (${count} x 1 KiB)`,
  );
}

const { alice, bob } = await pair();
rate("symmetric encrypt+decrypt", 50_000, (n) => symmetric(alice, bob, n));
rate("ping-pong (DH step each)", 2_000, (n) => pingPong(alice, bob, n));
rate("serialize+deserialize", 5_000, (n) => {
  for (let i = 0; i < n; i++) Session.deserialize(alice.serialize());
});
