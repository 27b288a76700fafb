import { memoryStore, SvcClient } from "@svc/client";
import { overHttp } from "@svc/test-client";
import { type LoadResult, median, runLoad } from "../harness/measure.js";
import type { BenchRow } from "../harness/table.js";
import { PrekeyQueues } from "../keys/fill-queues.js";

const ADDRESSES = 20;
/** Per address: more than both rows fetch together, so every answer carries a one-time prekey. */
const KEYS_PER_ADDRESS = 1000;
const HAND_WRITTEN = "hand-written fetch + res.json()";

/**
 * One bundle fetch at a time (the round trip a client waits for before its first message):
 * `client.api.keysBundle(address)` (URL built, answer validated against BundleResponse) beside a
 * hand-written fetch of /v1/keys/bundle/{address} that only parses the JSON, both on Node's
 * fetch, alternating over `rounds` rounds (which goes first alternating too), each row its
 * median round.
 */
export async function bundleFetchRows(
  server: string,
  options: { rounds: number; msPerRound: number },
): Promise<BenchRow[]> {
  const queues = new PrekeyQueues(overHttp(server));
  const addresses = await queues.fill(
    `bundle-${Date.now().toString(36)}`,
    ADDRESSES,
    KEYS_PER_ADDRESS,
  );
  const client = await SvcClient.open({ server, store: memoryStore() });

  let fetched = 0;
  const next = () => addresses[fetched++ % ADDRESSES] ?? "";
  let handWithPrekey = 0;
  const hand = async () => {
    const res = await fetch(`${server}/v1/keys/bundle/${next()}`);
    if (res.status !== 200) throw new Error(`bundle fetch answered ${res.status}`);
    const bundle = (await res.json()) as { oneTimePreKey?: unknown };
    if (bundle.oneTimePreKey !== undefined) handWithPrekey++;
  };
  let typedWithPrekey = 0;
  const typed = async () => {
    const bundle = await client.api.keysBundle(next());
    if (bundle.oneTimePreKey !== undefined) typedWithPrekey++;
  };

  const handRounds: LoadResult[] = [];
  const typedRounds: LoadResult[] = [];
  const load = { concurrency: 1, durationMs: options.msPerRound };
  for (let round = 0; round < options.rounds; round++) {
    // Which goes first alternates too: neither row always follows the other.
    if (round % 2 === 0) handRounds.push(await runLoad(hand, load));
    typedRounds.push(await runLoad(typed, load));
    if (round % 2 === 1) handRounds.push(await runLoad(hand, load));
  }
  await client.close();
  const handResult = median(handRounds);
  const typedResult = median(typedRounds);
  const overhead = handResult.opsPerSec / typedResult.opsPerSec - 1;
  return [
    {
      name: HAND_WRITTEN,
      ...handResult,
      note: `1 at a time; median of ${options.rounds} rounds alternating with the client's`,
    },
    {
      name: "client.api.keysBundle(address)",
      ...typedResult,
      baseline: HAND_WRITTEN,
      note: `mean round trip ${signed(overhead * 100)}% over hand-written (target < 10%: ${overhead < 0.1 ? "met" : "NOT met"}); ${typedWithPrekey + handWithPrekey} of ${fetched} answers carried a one-time prekey`,
    },
  ];
}

function signed(value: number): string {
  return `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;
}
