export interface BenchRow {
  /** What was measured, e.g. "bundle fetch (HTTP)". */
  name: string;
  /** Operations per second. */
  opsPerSec: number;
  p50Ms?: number | undefined;
  p99Ms?: number | undefined;
  /** Memory per item held (e.g. per idle connection), in KiB. */
  kibEach?: number | undefined;
  /** A process's resident memory, in MiB. */
  mib?: number | undefined;
  /** The row this one is compared with (same suite, same run). */
  baseline?: string | undefined;
  /** What is compared with the baseline: the rate (default), the p99 latency or the memory. */
  compare?: "opsPerSec" | "p99Ms" | "kibEach" | "mib";
  note?: string | undefined;
  /** More columns by header, after the built-in ones, in the order they first appear. */
  columns?: Record<string, string> | undefined;
}

export interface TableOptions {
  /** The rate column's header; "ops/s" unless given (e.g. "MB/s"). */
  rateUnit?: string;
  /** Whether the p50 and p99 columns are printed; they are unless false. */
  latency?: boolean;
  /** Whether the rate column is printed; it is unless false. */
  rate?: boolean;
}

/** Prints rows as an aligned table, each compared with its baseline row. */
export function printTable(title: string, rows: BenchRow[], options: TableOptions = {}): void {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const withLatency = options.latency !== false;
  const withRate = options.rate !== false;
  const withMemory = rows.some((row) => row.kibEach !== undefined);
  const withMib = rows.some((row) => row.mib !== undefined);
  const extra = [...new Set(rows.flatMap((row) => Object.keys(row.columns ?? {})))];
  const cells = rows.map((row) => {
    const base = row.baseline ? byName.get(row.baseline) : undefined;
    return [
      row.name,
      ...(withRate ? [formatNumber(row.opsPerSec)] : []),
      ...(withLatency
        ? [
            row.p50Ms === undefined ? "" : row.p50Ms.toFixed(2),
            row.p99Ms === undefined ? "" : row.p99Ms.toFixed(2),
          ]
        : []),
      ...(withMemory ? [row.kibEach === undefined ? "" : row.kibEach.toFixed(1)] : []),
      ...(withMib ? [row.mib === undefined ? "" : row.mib.toFixed(0)] : []),
      ...extra.map((header) => row.columns?.[header] ?? ""),
      base ? comparison(row, base) : "",
      row.note ?? "",
    ];
  });
  const header = [
    "benchmark",
    ...(withRate ? [options.rateUnit ?? "ops/s"] : []),
    ...(withLatency ? ["p50 ms", "p99 ms"] : []),
    ...(withMemory ? ["KiB each"] : []),
    ...(withMib ? ["RSS MiB"] : []),
    ...extra,
    "vs baseline",
    "note",
  ];
  const widths = header.map((h, i) =>
    Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)),
  );
  const line = (values: string[]) =>
    values.map((value, i) => value.padEnd(widths[i] ?? 0)).join("  ");
  console.log(`\n## ${title}\n`);
  console.log(line(header));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of cells) console.log(line(row));
}

/** A rate as a percentage of the baseline's; a latency or a size as a multiple of it. */
function comparison(row: BenchRow, base: BenchRow): string {
  const by = row.compare ?? "opsPerSec";
  if (by === "opsPerSec") {
    return `${((row.opsPerSec / base.opsPerSec) * 100).toFixed(0)}% of ${base.name}`;
  }
  const ratio = (row[by] ?? Number.NaN) / (base[by] ?? Number.NaN);
  const what = { p99Ms: "p99", kibEach: "KiB", mib: "RSS" }[by];
  return `${ratio.toFixed(2)}x ${what} of ${base.name.trim()}`;
}

function formatNumber(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(1);
}
