import type { PrintedRow } from "./parse-tables.js";

/** A row measured on both sides, over every round. */
export interface Judged {
  table: string;
  name: string;
  /** Medians over the rounds of the row's figure on each side. */
  base: number;
  head: number;
  /** Median of head ÷ base, turned so that above 1 is better (faster, smaller). */
  change: number;
  /**
   * The same with each side first divided by its own baseline row of that run: what the machine
   * did to both rows cancels out. Undefined for a row without a baseline.
   */
  normalized?: number;
  /**
   * How far one side's figure moved between its own rounds (the largest of either side's
   * max ÷ min, less 1, normalized where the change is): the machine's noise for this row. Zero
   * with a single round.
   */
  spread: number;
}

/** How far from 1 a change may be and still count as the same. */
export const TOLERANCE = 0.05;

/** One round is one run of a suite on each side; rows missing on either side are left out. */
export function judge(rounds: ReadonlyArray<{ base: PrintedRow[]; head: PrintedRow[] }>): Judged[] {
  const key = (row: PrintedRow) => `${row.table}\u0000${row.name}`;
  const first = rounds[0];
  if (!first) return [];
  const judged: Judged[] = [];
  for (const row of first.head) {
    const pairs = rounds.flatMap(({ base, head }) => {
      const b = base.find((r) => key(r) === key(row));
      const h = head.find((r) => key(r) === key(row));
      return b && h ? [{ b, h, bBase: baselineOf(base, b), hBase: baselineOf(head, h) }] : [];
    });
    if (pairs.length === 0) continue;
    const better = (b: number, h: number) => (row.higherIsBetter ? h / b : b / h);
    const normalized = pairs.flatMap(({ b, h, bBase, hBase }) =>
      bBase && hBase ? [better(b.value / bBase.value, h.value / hBase.value)] : [],
    );
    const normalizable = normalized.length === pairs.length;
    const side = (figure: (pair: (typeof pairs)[number]) => number) => spreadOf(pairs.map(figure));
    judged.push({
      table: row.table,
      name: row.name,
      base: median(pairs.map((p) => p.b.value)),
      head: median(pairs.map((p) => p.h.value)),
      change: median(pairs.map(({ b, h }) => better(b.value, h.value))),
      ...(normalizable ? { normalized: median(normalized) } : {}),
      spread: normalizable
        ? Math.max(
            side(({ b, bBase }) => b.value / (bBase?.value ?? 1)),
            side(({ h, hBase }) => h.value / (hBase?.value ?? 1)),
          )
        : Math.max(
            side(({ b }) => b.value),
            side(({ h }) => h.value),
          ),
    });
  }
  return judged;
}

/**
 * "same" within the tolerance; "noise" beyond it but within the row's own spread between rounds
 * (the run cannot tell); else "better" or "worse". Judged normalized where possible.
 */
export function verdict(row: Judged): "same" | "noise" | "better" | "worse" {
  const change = row.normalized ?? row.change;
  const distance = Math.abs(change - 1);
  if (distance <= TOLERANCE) return "same";
  if (distance <= row.spread) return "noise";
  return change > 1 ? "better" : "worse";
}

function spreadOf(values: number[]): number {
  const positive = values.filter((value) => value > 0);
  if (positive.length < 2) return 0;
  return Math.max(...positive) / Math.min(...positive) - 1;
}

function baselineOf(rows: PrintedRow[], row: PrintedRow): PrintedRow | undefined {
  return row.baseline === undefined
    ? undefined
    : rows.find((r) => r.table === row.table && r.name === row.baseline);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
