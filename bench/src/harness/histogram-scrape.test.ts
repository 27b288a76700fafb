import { describe, expect, it } from "vitest";
import { bucketQuantileMs, bucketsBetween, type HistogramBuckets } from "./histogram-scrape.js";

const scrape = (counts: number[]): HistogramBuckets =>
  new Map([
    ["store", [0.001, 0.002, 0.005, Infinity].map((le, i) => ({ le, count: counts[i] as number }))],
  ]);

describe("histogram quantiles from scraped buckets", () => {
  it("counts only what was observed between two scrapes", () => {
    expect(bucketsBetween(scrape([5, 5, 6, 6]), scrape([15, 25, 26, 26]), "store")).toEqual([
      { le: 0.001, count: 10 },
      { le: 0.002, count: 20 },
      { le: 0.005, count: 20 },
      { le: Infinity, count: 20 },
    ]);
    expect(bucketsBetween(scrape([1, 1, 1, 1]), new Map(), "store")).toEqual([]);
  });

  it("interpolates within the bucket the rank falls in, as histogram_quantile does", () => {
    const buckets = bucketsBetween(new Map(), scrape([10, 20, 20, 20]), "store");
    expect(bucketQuantileMs(buckets, 0.25)).toBeCloseTo(0.5);
    expect(bucketQuantileMs(buckets, 0.5)).toBeCloseTo(1);
    expect(bucketQuantileMs(buckets, 0.75)).toBeCloseTo(1.5);
  });

  it("answers the highest finite bound for a rank in +Inf, and nothing without observations", () => {
    const buckets = bucketsBetween(new Map(), scrape([0, 0, 1, 4]), "store");
    expect(bucketQuantileMs(buckets, 0.99)).toBe(5);
    expect(bucketQuantileMs(bucketsBetween(new Map(), scrape([0, 0, 0, 0]), "store"), 0.5)).toBe(
      undefined,
    );
  });
});
