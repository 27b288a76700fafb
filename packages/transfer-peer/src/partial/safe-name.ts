import { badRequest } from "@svc/protocol";

/** Room left under the usual 255-byte name limit for a " (12345)" that avoids a clash. */
export const MAX_NAME_BYTES = 240;

/** What a name with nothing usable in it is saved as. */
export const UNNAMED = "unnamed";

const utf8 = new TextEncoder();
// Characters that show nothing, or move what follows: controls (C0, C1), format characters
// (zero-width spaces and joiners, the bidirectional controls that can make "gpj.exe" read as
// "exe.jpg", soft hyphens, tags), lone surrogates, line and paragraph separators, and the
// Hangul fillers and combining grapheme joiner, which render as nothing.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]|\u034f/gu;
// Characters Windows does not allow in a name (":" would open an alternate data stream).
const NOT_ON_WINDOWS = /[<>:"|?*]/g;
// Device names Windows reserves, whatever their case and extension: "con", "NUL.txt", "Com1.tar.gz".
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * The sender's file name made safe to save on any system: the part after the last `/` or `\`,
 * without invisible characters (see INVISIBLE), with `<>:"|?*` as `_`, without leading dots or
 * white space (no hidden files) nor trailing ones (which Windows drops), and with `_` before a
 * name Windows reserves for a device. A name with nothing left is `unnamed`; one longer than
 * MAX_NAME_BYTES once safe is a 400.
 */
export function safeFileName(name: string): string {
  const base = name.normalize("NFC").split(/[/\\]/).at(-1) ?? "";
  const safe = base
    .replace(INVISIBLE, "")
    .replace(NOT_ON_WINDOWS, "_")
    .replace(/^[.\s]+/, "")
    .replace(/[.\s]+$/, "");
  if (safe === "") return UNNAMED;
  const stem = safe.split(".")[0] ?? "";
  const saved = WINDOWS_DEVICE.test(stem.trimEnd()) ? `_${safe}` : safe;
  if (utf8.encode(saved).length > MAX_NAME_BYTES) {
    throw badRequest(`name is longer than ${MAX_NAME_BYTES} bytes`);
  }
  return saved;
}

/** The name to try for a saved file at each attempt: `name`, then `stem (1).ext`, ... */
export function candidateName(name: string, attempt: number): string {
  if (attempt === 0) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)} (${attempt})${name.slice(dot)}` : `${name} (${attempt})`;
}
