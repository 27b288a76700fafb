export interface BenchRow {
  /** What was measured, e.g. "bundle fetch (HTTP)". */
  name: string;
  /** Operations per second. */
  opsPerSec: number;
  p50Ms?: number | undefined;
  p99Ms?: number | undefined;
  /** The row this one is compared with (same suite, same run). */
  baseline?: string | undefined;
  note?: string | undefined;
}

/** Prints rows as an aligned table, with each row's rate as a ratio of its baseline's. */
export function printTable(title: string, rows: BenchRow[]): void {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const cells = rows.map((row) => {
    const base = row.baseline ? byName.get(row.baseline) : undefined;
    return [
      row.name,
      formatNumber(row.opsPerSec),
      row.p50Ms === undefined ? "" : row.p50Ms.toFixed(2),
      row.p99Ms === undefined ? "" : row.p99Ms.toFixed(2),
      base ? `${((row.opsPerSec / base.opsPerSec) * 100).toFixed(0)}% of ${base.name}` : "",
      row.note ?? "",
    ];
  });
  const header = ["benchmark", "ops/s", "p50 ms", "p99 ms", "vs baseline", "note"];
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

function formatNumber(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(1);
}
