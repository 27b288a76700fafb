import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidateName, MAX_NAME_BYTES, safeFileName } from "./safe-name.js";

describe("safeFileName", () => {
  it.each([
    ["report.pdf", "report.pdf"],
    ["../../etc/passwd", "passwd"],
    ["C:\\Users\\bob\\notes.txt", "notes.txt"],
    ["dir/", undefined],
    ["..", undefined],
    ["...", undefined],
    [".bashrc", "bashrc"],
    [". .hidden", "hidden"],
    ["a\u0000b\nc\u001b[31m.txt", "abc[31m.txt"],
    ["evil\u202egpj.exe", "evilgpj.exe"],
    ["line\u2028break\ud800.txt", "linebreak.txt"],
    ["  spaced  ", "spaced"],
    ["a..b", "a..b"],
    ["ü.txt", "ü.txt"],
    ["", undefined],
  ])("%j becomes %j", (name, expected) => {
    if (expected === undefined) expect(() => safeFileName(name)).toThrow("no usable file name");
    else expect(safeFileName(name)).toBe(expected);
  });

  it("refuses a name longer than the limit", () => {
    expect(safeFileName("é".repeat(MAX_NAME_BYTES / 2))).toHaveLength(MAX_NAME_BYTES / 2);
    expect(() => safeFileName("é".repeat(MAX_NAME_BYTES / 2 + 1))).toThrow("longer than");
  });

  it("never yields a separator, a control character, a leading dot or an empty name", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (name) => {
        let safe: string;
        try {
          safe = safeFileName(name);
        } catch {
          return;
        }
        expect(safe).not.toMatch(/[/\\\p{Cc}\p{Cs}\u202e]/u);
        expect(safe).not.toMatch(/^[.\s]/);
        expect(safe.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe("candidateName", () => {
  it("numbers the stem and keeps the extension", () => {
    const first = (name: string) => [0, 1, 2].map((attempt) => candidateName(name, attempt));
    expect(first("photo.jpg")).toEqual(["photo.jpg", "photo (1).jpg", "photo (2).jpg"]);
    expect(first("archive.tar.gz")[1]).toBe("archive.tar (1).gz");
    expect(first("README")[1]).toBe("README (1)");
  });
});
