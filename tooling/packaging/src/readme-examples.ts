export type Runtime = "node" | "browser";

/**
 * A README example that the packaging test runs, marked by a comment naming where it runs:
 *
 *     <!-- example: node browser prekey-server -->
 *     ```ts
 *     …
 *     ```
 *
 * and followed by a ```text block of exactly what it prints. `prekey-server` asks for a fresh
 * prekey server: its URL is SVC_SERVER on Node, and a browser page is served on its origin.
 */
export interface ReadmeExample {
  runtimes: Runtime[];
  needsServer: boolean;
  code: string;
  output: string;
  /** The README line where the code starts, to name the example. */
  line: number;
}

const TAGS = new Set(["node", "browser", "prekey-server"]);
const EXAMPLE = /^<!-- example: ([^>]*) -->\n```ts\n([\s\S]*?)^```$/gm;
const NEXT_FENCE = /^```(\w*)\n([\s\S]*?)^```$/m;

/** Every marked example of a README, in order; a marker without its blocks is an error. */
export function readmeExamples(markdown: string): ReadmeExample[] {
  const examples = [...markdown.matchAll(EXAMPLE)].map((match) => {
    const [whole, tags = "", code = ""] = match;
    const line = markdown.slice(0, match.index).split("\n").length + 2;
    const words = tags.trim().split(/\s+/);
    const unknown = words.filter((word) => !TAGS.has(word));
    if (unknown.length > 0) throw new Error(`example at line ${line}: unknown tag ${unknown[0]}`);
    const runtimes = words.filter((word): word is Runtime => word === "node" || word === "browser");
    if (runtimes.length === 0) throw new Error(`example at line ${line} names no runtime`);
    const next = NEXT_FENCE.exec(markdown.slice((match.index ?? 0) + whole.length));
    if (next?.[1] !== "text") {
      throw new Error(`example at line ${line} is not followed by a text block of its output`);
    }
    return {
      runtimes,
      needsServer: words.includes("prekey-server"),
      code,
      output: next[2] ?? "",
      line,
    };
  });
  const markers = markdown.match(/<!-- example:/g)?.length ?? 0;
  if (markers !== examples.length) {
    throw new Error(`${markers - examples.length} example markers without a ts block under them`);
  }
  return examples;
}
