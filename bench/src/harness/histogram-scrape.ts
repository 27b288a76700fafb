/** Cumulative bucket counts of one Prometheus histogram, by label value, from a /metrics page. */
export type HistogramBuckets = Map<string, Array<{ le: number; count: number }>>;

/**
 * Reads `<name>_bucket{le="…",<label>="…"} n` lines (prom-client's order: `le` first) of the
 * server at `base` into bucket counts per value of `label`.
 */
export async function scrapeHistogram(
  base: string,
  name: string,
  label: string,
): Promise<HistogramBuckets> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = new RegExp(`^${name}_bucket\\{le="([^"]+)",${label}="([^"]+)"\\} (\\d+)$`, "gm");
  const buckets: HistogramBuckets = new Map();
  for (const [, le, value, count] of text.matchAll(line)) {
    const list = buckets.get(value as string) ?? [];
    list.push({ le: le === "+Inf" ? Infinity : Number(le), count: Number(count) });
    buckets.set(value as string, list);
  }
  return buckets;
}

/** The observations between two scrapes of one label value, as cumulative buckets. */
export function bucketsBetween(
  before: HistogramBuckets,
  after: HistogramBuckets,
  value: string,
): Array<{ le: number; count: number }> {
  const earlier = before.get(value) ?? [];
  return (after.get(value) ?? []).map(({ le, count }, i) => ({
    le,
    count: count - (earlier[i]?.count ?? 0),
  }));
}

/**
 * The q-quantile of cumulative buckets in milliseconds, interpolated linearly within its bucket
 * as Prometheus's histogram_quantile does (the highest finite bound when it lies in +Inf's).
 */
export function bucketQuantileMs(
  buckets: Array<{ le: number; count: number }>,
  q: number,
): number | undefined {
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of buckets) {
    if (count >= rank) {
      if (le === Infinity) return lower * 1000;
      const within = count - below;
      return (lower + (le - lower) * (within === 0 ? 0 : (rank - below) / within)) * 1000;
    }
    lower = le;
    below = count;
  }
  return lower * 1000;
}
