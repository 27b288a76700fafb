import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidateName, MAX_NAME_BYTES, safeFileName, UNNAMED } from "./safe-name.js";

describe("safeFileName", () => {
  it.each([
    ["report.pdf", "report.pdf"],
    ["../../etc/passwd", "passwd"],
    ["C:\\Users\\bob\\notes.txt", "notes.txt"],
    ["dir/", UNNAMED],
    ["..", UNNAMED],
    ["...", UNNAMED],
    [".bashrc", "bashrc"],
    [". .hidden", "hidden"],
    ["a\u0000b\nc\u001b[31m.txt", "abc[31m.txt"],
    ["evil\u202egpj.exe", "evilgpj.exe"],
    ["line\u2028break\ud800.txt", "linebreak.txt"],
    ["  spaced  ", "spaced"],
    ["a..b", "a..b"],
    ["ü.txt", "ü.txt"],
    ["", UNNAMED],
    // Invisible: zero-width space, joiners, word joiner, byte order mark, soft hyphen, tags,
    // the Arabic letter mark, Hangul fillers.
    ["in\u200bvis\u200c\u200d\u2060i\ufeffble\u00ad.txt", "invisible.txt"],
    ["tag\u{e0041}\u{e007f}\u061c\u3164.txt", "tag.txt"],
    ["\u200b\u200b", UNNAMED],
    ["\u2066\u202e\u2069", UNNAMED],
    ["\u00a0\u3000 \t", UNNAMED],
    ["\u200bphoto.jpg\u200b", "photo.jpg"],
    // Windows: reserved device names with any case and extension, forbidden characters, and
    // trailing dots and spaces.
    ["CON", "_CON"],
    ["con.txt", "_con.txt"],
    ["Nul.tar.gz", "_Nul.tar.gz"],
    ["aux .txt", "_aux .txt"],
    ["PRN", "_PRN"],
    ["com1", "_com1"],
    ["LPT9.log", "_LPT9.log"],
    ["COM\u00b9.txt", "_COM\u00b9.txt"],
    ["CONIN$", "_CONIN$"],
    ["console.txt", "console.txt"],
    ["com10", "com10"],
    ["nul_file", "nul_file"],
    ["my.con", "my.con"],
    ['a<b>c:d"e|f?g*h.txt', "a_b_c_d_e_f_g_h.txt"],
    ["report.pdf. . ", "report.pdf"],
  ])("%j becomes %j", (name, expected) => {
    expect(safeFileName(name)).toBe(expected);
  });

  it("refuses a name longer than the limit", () => {
    expect(safeFileName("é".repeat(MAX_NAME_BYTES / 2))).toHaveLength(MAX_NAME_BYTES / 2);
    expect(() => safeFileName("é".repeat(MAX_NAME_BYTES / 2 + 1))).toThrow("longer than");
  });

  it("never yields a separator, an invisible character, a leading dot, a device name or an empty name", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (name) => {
        let safe: string;
        try {
          safe = safeFileName(name);
        } catch {
          return;
        }
        expect(safe).not.toMatch(/[/\\\p{Cc}\p{Cf}\p{Cs}<>:"|?*]/u);
        expect(safe).not.toMatch(/^[.\s]|[.\s]$/);
        expect(safe.split(".")[0]?.trimEnd()).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)$/i);
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
