import { describe, expect, it, vi } from "vitest";
import { type BenchRow, printTable } from "../harness/table.js";
import { judge, verdict } from "./judge.js";
import { parsePrintedTables } from "./parse-tables.js";

function printed(title: string, rows: BenchRow[]): string {
  const lines: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: string) => lines.push(line));
  try {
    printTable(title, rows);
  } finally {
    log.mockRestore();
  }
  return `${lines.join("\n")}\n`;
}

const fetchRows = (pop: number, fetch: number, p99: number): BenchRow[] => [
  { name: "SQL pop only (DELETE ... RETURNING)", opsPerSec: pop },
  {
    name: "bundle fetch (HTTP)",
    opsPerSec: fetch,
    baseline: "SQL pop only (DELETE ... RETURNING)",
    note: "50 clients, of which none",
  },
  { name: "wake-up latency", opsPerSec: 0, p50Ms: 1, p99Ms: p99 },
];

describe("parsePrintedTables", () => {
  it("reads back every row printTable wrote, with its rate, latency and baseline", () => {
    const text = `noise before\n${printed("prekeys: PGlite", fetchRows(5023, 4364, 12.5))}`;
    expect(parsePrintedTables(text)).toEqual([
      {
        table: "prekeys: PGlite",
        name: "SQL pop only (DELETE ... RETURNING)",
        value: 5023,
        higherIsBetter: true,
      },
      {
        table: "prekeys: PGlite",
        name: "bundle fetch (HTTP)",
        value: 4364,
        higherIsBetter: true,
        baseline: "SQL pop only (DELETE ... RETURNING)",
      },
      { table: "prekeys: PGlite", name: "wake-up latency", value: 12.5, higherIsBetter: false },
    ]);
  });

  it("judges every row of a table compared by p99 or KiB by that figure, not by its rate", () => {
    const rows: BenchRow[] = [
      { name: "deposit answer", opsPerSec: 500, p50Ms: 1, p99Ms: 4 },
      {
        name: "sse delivery",
        opsPerSec: 500,
        p50Ms: 1.2,
        p99Ms: 5,
        baseline: "deposit answer",
        compare: "p99Ms",
      },
    ];
    const idle: BenchRow[] = [
      { name: "bare", opsPerSec: 3000, kibEach: 7.5 },
      { name: "bridges", opsPerSec: 1000, kibEach: 9, baseline: "bare", compare: "kibEach" },
    ];
    const text = printed("b: latency", rows) + printed("b: memory", idle);
    expect(
      parsePrintedTables(text).map(({ name, value, higherIsBetter }) => [
        name,
        value,
        higherIsBetter,
      ]),
    ).toEqual([
      ["deposit answer", 4, false],
      ["sse delivery", 5, false],
      ["bare", 7.5, false],
      ["bridges", 9, false],
    ]);
  });
});

describe("judge", () => {
  it("divides out what the machine did to both rows of a side (their shared baseline)", () => {
    // The head ran on a machine 1.5x faster: both rows rose, the path's share of its baseline
    // did not move.
    const base = parsePrintedTables(printed("t: x", fetchRows(1000, 800, 10)));
    const head = parsePrintedTables(printed("t: x", fetchRows(1500, 1200, 10)));
    const [pop, fetch, latency] = judge([{ base, head }]);
    expect(pop).toMatchObject({ change: 1.5 });
    expect(pop?.normalized).toBeUndefined();
    expect(fetch).toMatchObject({ base: 800, head: 1200, change: 1.5, normalized: 1 });
    expect(verdict(fetch as NonNullable<typeof fetch>)).toBe("same");
    expect(latency).toMatchObject({ change: 1 });
  });

  it("turns latency so that above 1 is better, and takes the median over rounds", () => {
    const round = (p99: number) => ({
      base: parsePrintedTables(printed("t: x", fetchRows(1000, 800, 10))),
      head: parsePrintedTables(printed("t: x", fetchRows(1000, 800, p99))),
    });
    const [, , latency] = judge([round(20), round(12.5), round(12)]);
    expect(latency?.change).toBe(0.8);
    expect(latency?.spread).toBeCloseTo(20 / 12 - 1);
    expect(verdict(latency as NonNullable<typeof latency>)).toBe("noise");
  });

  it("calls a change the run cannot tell from its own spread noise, and one beyond it worse", () => {
    const round = (pop: number, fetch: number) => ({
      base: parsePrintedTables(printed("t: x", fetchRows(1000, 800, 10))),
      head: parsePrintedTables(printed("t: x", fetchRows(pop, fetch, 10))),
    });
    // The head's fetch share of its baseline: 0.8 and 0.76 against the base's 0.8 -> 1 and 0.95.
    const [, close] = judge([round(1000, 800), round(1000, 760)]);
    expect(close).toMatchObject({ normalized: 0.975, spread: expect.closeTo(1 / 0.95 - 1) });
    expect(verdict(close as NonNullable<typeof close>)).toBe("same");
    const [, steady] = judge([round(1000, 640), round(1000, 640)]);
    expect(steady).toMatchObject({ normalized: expect.closeTo(0.8), spread: 0 });
    expect(verdict(steady as NonNullable<typeof steady>)).toBe("worse");
    const [, wide] = judge([round(1000, 800), round(1000, 600)]);
    expect(wide?.normalized).toBeCloseTo(0.875);
    expect(verdict(wide as NonNullable<typeof wide>)).toBe("noise");
  });
});
