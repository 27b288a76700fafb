/** One row of a printed bench table, as read back from the text. */
export interface PrintedRow {
  /** The `## ` heading of its table. */
  table: string;
  name: string;
  /** The figure the row is judged by, and whether more of it is better. */
  value: number;
  higherIsBetter: boolean;
  /** The row of the same table it was compared with, when it names one. */
  baseline?: string;
}

/** The columns a row may be judged by, in order of preference: a rate, then a latency or size. */
const LOWER_IS_BETTER = ["p99 ms", "p50 ms", "RSS MiB", "KiB each"];
const NOT_A_RATE = new Set([...LOWER_IS_BETTER, "benchmark", "vs baseline", "note"]);

/**
 * Reads back what printTable wrote: every table's rows, each with its rate (the column after the
 * name, whatever its unit) or else its p99, p50 or memory figure; in a table whose rows were
 * compared with their baselines by p99, KiB or RSS, every row by that figure. Columns are cut where the
 * dashed rule under the header puts them, so names with spaces stay whole.
 */
export function parsePrintedTables(text: string): PrintedRow[] {
  const rows: PrintedRow[] = [];
  const lines = text.split("\n");
  let table = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.startsWith("## ")) {
      table = line.slice(3).trim();
      continue;
    }
    const rule = lines[i + 1];
    if (!line.startsWith("benchmark") || rule === undefined || !/^-+( +-+)*\s*$/.test(rule)) {
      continue;
    }
    const columns = columnsOf(line, rule);
    const body: string[] = [];
    for (i += 2; i < lines.length && (lines[i] as string).trim() !== ""; i++) {
      body.push(lines[i] as string);
    }
    const judgedBy = tableFigure(columns, body);
    for (const text of body) {
      const row = readRow(table, columns, text, judgedBy);
      if (row) rows.push(row);
    }
  }
  return rows;
}

/** What a row's "vs baseline" says it was compared by, and the column that holds it. */
const COMPARED_BY: Record<string, string> = { p99: "p99 ms", KiB: "KiB each", RSS: "RSS MiB" };

/**
 * The column a whole table is judged by when its rows say they were compared by a latency or a
 * size: such a table runs at a fixed rate, or counts connections opened, so its rate says
 * nothing about the path.
 */
function tableFigure(columns: Column[], body: string[]): string | undefined {
  const column = columns.find((c) => c.header === "vs baseline");
  if (column === undefined) return undefined;
  for (const text of body) {
    const by = /x (\S+) of /.exec(text.slice(column.start, column.end))?.[1];
    if (by !== undefined && by in COMPARED_BY) return COMPARED_BY[by];
  }
  return undefined;
}

interface Column {
  header: string;
  start: number;
  end: number;
}

function columnsOf(header: string, rule: string): Column[] {
  const columns: Column[] = [];
  for (const match of rule.matchAll(/-+/g)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    columns.push({ header: header.slice(start, end).trim(), start, end });
  }
  return columns;
}

function readRow(
  table: string,
  columns: Column[],
  line: string,
  judgedBy: string | undefined,
): PrintedRow | undefined {
  const cell = (header: string) => {
    const column = columns.find((c) => c.header === header);
    return column ? line.slice(column.start, column.end).trim() : "";
  };
  const name = cell("benchmark");
  const rate = columns.find((c) => !NOT_A_RATE.has(c.header));
  const figures: Array<[string, boolean]> = [
    ...(judgedBy ? [[judgedBy, false] as [string, boolean]] : []),
    ...(rate ? [[rate.header, true] as [string, boolean]] : []),
    ...LOWER_IS_BETTER.map((header) => [header, false] as [string, boolean]),
  ];
  for (const [header, higherIsBetter] of figures) {
    const value = Number.parseFloat(cell(header).replaceAll(",", ""));
    if (!Number.isFinite(value) || value <= 0) continue;
    const baseline = / of (.+)$/.exec(cell("vs baseline"))?.[1];
    return { table, name, value, higherIsBetter, ...(baseline ? { baseline } : {}) };
  }
  return undefined;
}
