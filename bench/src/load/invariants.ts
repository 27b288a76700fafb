import type { Recorder } from "./recorder.js";

/** One invariant over a whole run, as the report prints it. */
export interface InvariantResult {
  name: string;
  passed: boolean;
  violations: number;
  /** What was checked, in numbers. */
  detail: string;
  /** The first violations, spelled out. */
  examples: string[];
}

const EXAMPLES = 5;

/**
 * No one-time prekey handed out twice, none handed out that was never uploaded, and none lost:
 * for every address whose every upload and fetch was answered, keys uploaded = keys handed out +
 * keys still queued at the end.
 */
export function checkPrekeys(
  recorder: Pick<
    Recorder,
    "prekeysOffered" | "prekeysStored" | "uncertainQueues" | "prekeysHandedOut" | "prekeysRemaining"
  >,
): InvariantResult {
  const examples: string[] = [];
  const note = (text: string) => {
    if (examples.length < EXAMPLES) examples.push(text);
  };
  let twice = 0;
  let unknown = 0;
  let handouts = 0;
  const handedPerAddress = new Map<string, number>();
  for (const [publicKey, handed] of recorder.prekeysHandedOut) {
    handouts += handed.times;
    handedPerAddress.set(handed.address, (handedPerAddress.get(handed.address) ?? 0) + 1);
    if (handed.times > 1) {
      twice++;
      note(
        `${handed.address} keyId ${handed.keyId} (${publicKey}) handed out ${handed.times} times`,
      );
    }
    const offered = recorder.prekeysOffered.get(publicKey);
    if (!offered || offered.address !== handed.address || offered.keyId !== handed.keyId) {
      unknown++;
      note(`${handed.address} keyId ${handed.keyId} (${publicKey}) was never uploaded there`);
    }
  }
  let balanced = 0;
  let unbalanced = 0;
  let skipped = 0;
  for (const [address, stored] of recorder.prekeysStored) {
    const remaining = recorder.prekeysRemaining.get(address);
    if (recorder.uncertainQueues.has(address) || remaining === undefined) {
      skipped++;
      continue;
    }
    const handed = handedPerAddress.get(address) ?? 0;
    if (stored === handed + remaining) {
      balanced++;
      continue;
    }
    unbalanced++;
    note(`${address}: ${stored} uploaded, ${handed} handed out, ${remaining} left`);
  }
  const violations = twice + unknown + unbalanced;
  return {
    name: "no one-time prekey handed out twice or lost",
    passed: violations === 0,
    violations,
    detail:
      `${handouts} handed out from ${handedPerAddress.size} queues: ${twice} keys twice, ` +
      `${unknown} never uploaded; ${balanced} queues add up (uploaded = handed out + left), ` +
      `${unbalanced} do not, ${skipped} not judged (a request went unanswered or failed)`,
    examples,
  };
}

/**
 * Every deposit the server acknowledged reached its recipient exactly once (by a bridge, a poll
 * or an inbox fetch), nothing reached anyone that was not deposited to them, and no blob the
 * recipient acknowledged was still served afterwards.
 */
export function checkDeliveries(
  recorder: Pick<Recorder, "deposits" | "deliveries" | "leftQueued">,
): InvariantResult {
  const examples: string[] = [];
  const note = (text: string) => {
    if (examples.length < EXAMPLES) examples.push(text);
  };
  let acknowledged = 0;
  let once = 0;
  let lost = 0;
  let duplicated = 0;
  let extra = 0;
  let misdelivered = 0;
  let unanswered = 0;
  let unansweredDelivered = 0;
  for (const [msgId, deposit] of recorder.deposits) {
    const deliveries = recorder.deliveries.get(msgId) ?? [];
    const wrong = deliveries.filter((d) => d.recipient !== deposit.recipient);
    if (wrong.length > 0) {
      misdelivered++;
      note(`${msgId} for ${deposit.recipient} reached ${wrong[0]?.recipient}`);
    }
    if (!deposit.acknowledged) {
      unanswered++;
      if (deliveries.length > 0) unansweredDelivered++;
      continue;
    }
    acknowledged++;
    if (deliveries.length === 1) once++;
    else if (deliveries.length === 0) {
      lost++;
      note(`${msgId} to ${deposit.recipient} acknowledged, never delivered`);
    } else {
      duplicated++;
      extra += deliveries.length - 1;
      const channels = deliveries.map((d) => d.channel).join(", ");
      note(`${msgId} to ${deposit.recipient} delivered ${deliveries.length} times (${channels})`);
    }
  }
  let unknown = 0;
  for (const [msgId, deliveries] of recorder.deliveries) {
    if (recorder.deposits.has(msgId)) continue;
    unknown++;
    note(`${msgId} reached ${deliveries[0]?.recipient} and was never deposited`);
  }
  for (const { msgId, recipient } of recorder.leftQueued) {
    note(`${msgId} still queued for ${recipient} after its ack`);
  }
  const violations = lost + duplicated + misdelivered + unknown + recorder.leftQueued.length;
  return {
    name: "every acknowledged deposit delivered exactly once",
    passed: violations === 0,
    violations,
    detail:
      `${acknowledged} acknowledged deposits: ${once} delivered once, ${lost} lost, ` +
      `${duplicated} more than once (${extra} extra deliveries); ${misdelivered} to another ` +
      `recipient, ${unknown} deliveries never deposited, ${recorder.leftQueued.length} still ` +
      `queued after their ack; ${unanswered} deposits without a 200 {idempotent: false} ` +
      `(${unansweredDelivered} of them delivered)`,
    examples,
  };
}
