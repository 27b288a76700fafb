import { type LookupAddress, lookup } from "node:dns";
import { isIP } from "node:net";
import { isRefusedAddress } from "./address-class.js";
import { PushError } from "./errors.js";

/** The longest endpoint URL taken, as the wire's schema bounds it. */
export const MAX_ENDPOINT_LENGTH = 1024;

/** Why an endpoint is refused: stable strings, the message of PushError ENDPOINT_REFUSED. */
export const REFUSAL = {
  notUrl: "endpoint is not a URL",
  notHttps: "endpoint must be https",
  private: "endpoint resolves to a private, loopback or link-local address",
  unresolved: "endpoint does not resolve",
} as const;

export interface EndpointPolicy {
  /** Take plain http and private, loopback and link-local addresses (tests, closed networks). */
  allowPrivate: boolean;
}

/**
 * Refuses (PushError ENDPOINT_REFUSED, the message one of REFUSAL) an endpoint that is not an
 * https URL without credentials, or whose host is, or resolves to, any address of a refused class
 * (every address DNS gives is checked). With allowPrivate, http and private addresses pass; a host
 * that does not resolve is refused either way.
 */
export async function checkEndpoint(endpoint: string, options: EndpointPolicy): Promise<void> {
  const url = checkEndpointUrl(endpoint, options);
  const host = bareHost(url);
  if (isIP(host) !== 0) return;
  const addresses = await resolveAll(host).catch(() => {
    throw refused(REFUSAL.unresolved);
  });
  if (!options.allowPrivate && addresses.some((a) => isRefusedAddress(a.address))) {
    throw refused(REFUSAL.private);
  }
}

/**
 * What can be checked without DNS: the URL's form, and its host when that is an IP address. A
 * name's addresses are checked by checkEndpoint, and at request time by policyLookup.
 */
export function checkEndpointUrl(endpoint: string, options: EndpointPolicy): URL {
  const url = parseEndpoint(endpoint, options);
  const host = bareHost(url);
  if (!options.allowPrivate && isIP(host) !== 0 && isRefusedAddress(host)) {
    throw refused(REFUSAL.private);
  }
  return url;
}

/** The endpoint's URL once its form passes: https (or http with allowPrivate), no userinfo. */
function parseEndpoint(endpoint: string, options: EndpointPolicy): URL {
  if (typeof endpoint !== "string" || endpoint.length > MAX_ENDPOINT_LENGTH) {
    throw refused(REFUSAL.notUrl);
  }
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw refused(REFUSAL.notUrl);
  }
  if (url.protocol !== "https:" && !(options.allowPrivate && url.protocol === "http:")) {
    throw refused(REFUSAL.notHttps);
  }
  if (url.username !== "" || url.password !== "" || bareHost(url) === "") {
    throw refused(REFUSAL.notUrl);
  }
  return url;
}

/** A URL's host without the brackets of an IPv6 literal. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) `request` that applies the policy to the addresses the socket is
 * about to connect to, so the address checked is the address used (no DNS-rebinding gap): a
 * refused class fails the request with PushError ENDPOINT_REFUSED before it connects. A DNS
 * failure is passed on as it is, a network error like any other (it may be transient).
 * IP-literal hosts never reach it: `sendWebPush` checks those before the request.
 */
export function policyLookup(options: EndpointPolicy) {
  return (hostname: string, lookupOptions: { all?: boolean }, callback: LookupCallback): void => {
    resolveAll(hostname).then(
      (addresses) => {
        if (!options.allowPrivate && addresses.some((a) => isRefusedAddress(a.address))) {
          callback(refused(REFUSAL.private) as NodeJS.ErrnoException, "");
        } else if (lookupOptions.all) {
          callback(null, addresses);
        } else {
          const first = addresses[0] as LookupAddress;
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    try {
      lookup(host, { all: true, verbatim: true }, (error, addresses) => {
        if (error) reject(error);
        else if (addresses.length === 0)
          reject(Object.assign(new Error(host), { code: "ENOTFOUND" }));
        else resolve(addresses);
      });
    } catch (error) {
      reject(error);
    }
  });
}

const refused = (reason: string) => new PushError("ENDPOINT_REFUSED", reason);
