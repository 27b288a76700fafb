import { COSIGNATURE_V1_TYPE, parseVerifierKey, type Verifier } from "@svc/signed-note";

/** A witness of SVC_KT_WITNESSES: its cosignature key and submission URL prefix. */
export interface KtWitnessConfig {
  verifier: Verifier;
  url: string;
}

/**
 * Parses SVC_KT_WITNESSES: entries separated by commas or newlines, each a C2SP verifier key of
 * type 0x04 (cosignature/v1) and the witness's http(s) submission URL prefix, separated by white
 * space. Every problem found is listed, for one ConfigError.
 */
export function parseKtWitnesses(value: string | undefined): {
  witnesses: KtWitnessConfig[];
  problems: string[];
} {
  const entries = (value ?? "")
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const problems: string[] = [];
  const witnesses: KtWitnessConfig[] = [];
  for (const [i, entry] of entries.entries()) {
    const where = `SVC_KT_WITNESSES entry ${i + 1}`;
    const [key, url, ...rest] = entry.split(/\s+/);
    if (key === undefined || url === undefined || rest.length > 0) {
      problems.push(`${where}: must be "<verifier key> <url>"`);
      continue;
    }
    let verifier: Verifier;
    try {
      verifier = parseVerifierKey(key);
    } catch {
      problems.push(`${where}: the key is not a C2SP verifier key`);
      continue;
    }
    if (verifier.type !== COSIGNATURE_V1_TYPE) {
      problems.push(`${where}: the key must be a cosignature/v1 key (type 0x04)`);
      continue;
    }
    if (!/^https?:\/\/[^\s]+$/.test(url) || !URL.canParse(url)) {
      problems.push(`${where}: the URL must be an http:// or https:// URL`);
      continue;
    }
    if (witnesses.some((w) => w.verifier.name === verifier.name)) {
      problems.push(`${where}: two witnesses are named ${verifier.name}`);
      continue;
    }
    witnesses.push({ verifier, url: url.replace(/\/+$/, "") });
  }
  return { witnesses, problems };
}
