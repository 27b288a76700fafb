import { describe, expect, it } from "vitest";
import { SeededRandom } from "./random.js";
import { INITIAL_PREKEYS, MIX, REPLENISH_KEYS, type Roster, Schedule } from "./schedule.js";

const roster: Roster = { users: 50, fetchers: [0, 1, 2, 3], pushed: [10, 11, 12], instances: 2 };

describe("SeededRandom", () => {
  it("repeats a stream for the same seed and name, and differs otherwise", () => {
    const draw = (seed: number, stream: string) => {
      const random = new SeededRandom(seed, stream);
      return Array.from({ length: 5 }, () => random.uint32());
    };
    expect(draw(1, "a")).toEqual(draw(1, "a"));
    expect(draw(1, "a")).not.toEqual(draw(2, "a"));
    expect(draw(1, "a")).not.toEqual(draw(1, "b"));
  });

  it("draws distinct values and refuses impossible draws", () => {
    const random = new SeededRandom(3);
    expect(new Set(random.distinct(10, 10)).size).toBe(10);
    expect(() => random.distinct(11, 10)).toThrow(RangeError);
    expect(() => random.below(0)).toThrow(RangeError);
    expect(() => new SeededRandom(1.5)).toThrow(TypeError);
  });
});

describe("Schedule", () => {
  it("is the same operations at the same times for the same seed", () => {
    const a = new Schedule(7, "run", roster).openLoop(200, 2, 10_000);
    const b = new Schedule(7, "run", roster).openLoop(200, 2, 10_000);
    expect(a).toEqual(b);
    expect(new Schedule(8, "run", roster).openLoop(200, 2, 10_000)).not.toEqual(a);
  });

  it("draws the mix in its proportions, at the rate asked, bounded in time and size", () => {
    const ops = new Schedule(1, "run", roster).openLoop(1000, 20, 100_000);
    expect(ops.length).toBeGreaterThan(19_000);
    expect(ops.length).toBeLessThan(21_000);
    expect(ops.every((op) => op.at >= 0 && op.at < 20_000)).toBe(true);
    for (const [kind, weight] of Object.entries(MIX)) {
      const share = ops.filter((op) => op.kind === kind).length / ops.length;
      expect(share).toBeGreaterThan(weight / 100 - 0.01);
      expect(share).toBeLessThan(weight / 100 + 0.01);
    }
    expect(new Schedule(1, "run", roster).openLoop(1000, 20, 500)).toHaveLength(500);
  });

  it("names only users of the roster and instances that exist", () => {
    for (const op of new Schedule(2, "run", roster).take(5000)) {
      expect(op.instance).toBeLessThan(roster.instances);
      if (op.kind === "fetch") expect(roster.fetchers).toContain(op.user);
      if (op.kind === "reconnect") expect(roster.pushed).toContain(op.user);
      if (op.kind === "deposit") {
        expect(op.recipient).toBeLessThan(roster.users);
        expect(op.sender).not.toBe(op.recipient);
      }
      if (op.kind === "bundle") expect(op.target).toBeLessThan(roster.users);
      if (op.kind === "register") expect(op.user).toBeGreaterThanOrEqual(roster.users);
    }
  });

  it("never reuses a keyId, a new user or a deposit serial across schedules of one run", () => {
    const first = new Schedule(4, "peak", roster);
    const second = new Schedule(4, "measured", roster, first.counters);
    const ops = [...first.take(3000), ...second.take(3000)];
    const keyIds = new Set<string>();
    const serials = new Set<number>();
    const newUsers = new Set<number>();
    for (const op of ops) {
      if (op.kind === "replenish") {
        expect(op.firstKeyId).toBeGreaterThanOrEqual(INITIAL_PREKEYS);
        for (let id = op.firstKeyId; id < op.firstKeyId + REPLENISH_KEYS; id++) {
          const key = `${op.user}/${id}`;
          expect(keyIds.has(key)).toBe(false);
          keyIds.add(key);
        }
      }
      if (op.kind === "deposit") {
        expect(serials.has(op.serial)).toBe(false);
        serials.add(op.serial);
      }
      if (op.kind === "register") {
        expect(newUsers.has(op.user)).toBe(false);
        newUsers.add(op.user);
      }
    }
  });

  it("refuses a roster it cannot draw from and a rate that is not positive", () => {
    expect(() => new Schedule(1, "", { ...roster, users: 1 })).toThrow(RangeError);
    expect(() => new Schedule(1, "", { ...roster, pushed: [] })).toThrow(RangeError);
    expect(() => new Schedule(1, "", roster).openLoop(0, 1, 10)).toThrow(RangeError);
  });
});
