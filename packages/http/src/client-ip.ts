import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/**
 * The client's IP: the socket's peer address, or, behind `trustedProxies` reverse proxies, the
 * X-Forwarded-For entry that the outermost trusted proxy appended.
 */
export function clientIp(c: Context, trustedProxies: number): string {
  if (trustedProxies > 0) {
    const forwarded = c.req.header("x-forwarded-for");
    if (forwarded) {
      const hops = forwarded.split(",").map((hop) => hop.trim());
      const candidate = hops[Math.max(0, hops.length - trustedProxies)];
      if (candidate) return candidate;
    }
  }
  return socketAddress(c);
}

function socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // in-process requests (app.request in tests) have no socket
  }
}
