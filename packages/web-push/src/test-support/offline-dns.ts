import type * as Dns from "node:dns";

type LookupCallback = (error: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;

/**
 * node:dns whose lookup answers ENOTFOUND at once for names under .invalid (RFC 6761: they never
 * resolve), so tests of names that do not resolve need no DNS server; other names as usual.
 * For `vi.mock("node:dns", ...)`.
 */
export function offlineDns(dns: typeof Dns): typeof Dns {
  const lookup = (host: string, options: unknown, callback: LookupCallback) => {
    if (!host.endsWith(".invalid")) {
      (dns.lookup as (h: string, o: unknown, c: LookupCallback) => void)(host, options, callback);
      return;
    }
    const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${host}`);
    error.code = "ENOTFOUND";
    process.nextTick(() => callback(error));
  };
  return { ...dns, lookup: lookup as typeof dns.lookup };
}
