import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PartialHandles, WRITE_SLICE_BYTES } from "./partial-handles.js";

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-partial-handles-"));
  path = join(dir, "a.part");
  await writeFile(path, "");
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("PartialHandles", () => {
  it("writes lanes at once through one handle, kept open until forgotten", async () => {
    const handles = new PartialHandles();
    const content = randomBytes(8 * 65_536);
    await Promise.all(
      Array.from({ length: 8 }, (_, lane) =>
        handles.writeDurably(
          path,
          lane * 65_536,
          content.subarray(lane * 65_536, (lane + 1) * 65_536),
        ),
      ),
    );
    expect(handles.size).toBe(1);
    expect(await readFile(path)).toEqual(content);
    handles.forget(path);
    expect(handles.size).toBe(0);
  });

  it("writes data longer than one write call takes whole, at its offset, beside other lanes", async () => {
    const handles = new PartialHandles();
    const chunk = 4 * WRITE_SLICE_BYTES + 123;
    const content = randomBytes(3 * chunk);
    // Lanes out of order: each lands at its own offset, none overwrites another's slices.
    await Promise.all(
      [2, 0, 1].map((lane) =>
        handles.writeDurably(
          path,
          lane * chunk,
          content.subarray(lane * chunk, (lane + 1) * chunk),
        ),
      ),
    );
    expect(Buffer.compare(await readFile(path), content)).toBe(0);
    handles.close();
  });

  it("closes an idle file, and opens it again for the next write", async () => {
    const handles = new PartialHandles(10);
    await handles.writeDurably(path, 0, new Uint8Array([1]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handles.size).toBe(0);
    await handles.writeDurably(path, 1, new Uint8Array([2]));
    expect([...(await readFile(path))]).toEqual([1, 2]);
    handles.close();
    expect(handles.size).toBe(0);
  });

  it("fails with ENOENT once the forgotten file is gone, and keeps no handle for it", async () => {
    const handles = new PartialHandles();
    await handles.writeDurably(path, 0, new Uint8Array([1]));
    handles.forget(path);
    await unlink(path);
    await expect(handles.writeDurably(path, 0, new Uint8Array(1))).rejects.toMatchObject({
      code: "ENOENT",
    });
    expect(handles.size).toBe(0);
  });
});
