import { isIPv4, isIPv6 } from "node:net";

/**
 * IPv4 ranges a push endpoint may not be in: this host, private, shared (CGN), loopback,
 * link-local, IETF protocol assignments, benchmarking, and everything from multicast up.
 */
const REFUSED_V4: ReadonlyArray<readonly [number, number]> = [
  [0x00000000, 8], // 0.0.0.0/8
  [0x0a000000, 8], // 10.0.0.0/8
  [0x64400000, 10], // 100.64.0.0/10
  [0x7f000000, 8], // 127.0.0.0/8
  [0xa9fe0000, 16], // 169.254.0.0/16
  [0xac100000, 12], // 172.16.0.0/12
  [0xc0000000, 24], // 192.0.0.0/24
  [0xc0a80000, 16], // 192.168.0.0/16
  [0xc6120000, 15], // 198.18.0.0/15
  [0xe0000000, 3], // 224.0.0.0/4 multicast, 240.0.0.0/4 reserved, broadcast
];

/** Whether an IP address (v4 or v6 text, as DNS or a URL gives it) is a refused class. */
export function isRefusedAddress(address: string): boolean {
  if (isIPv4(address)) return isRefusedV4(parseV4(address));
  const bytes = parseV6(address.replace(/%.*$/, ""));
  if (bytes === undefined) return true;
  const embedded = embeddedV4(bytes);
  if (embedded !== undefined) return isRefusedV4(embedded);
  const first = bytes[0] ?? 0;
  const second = bytes[1] ?? 0;
  return (
    (first & 0xfe) === 0xfc || // fc00::/7 unique local
    (first === 0xfe && (second & 0xc0) === 0x80) || // fe80::/10 link-local
    (first === 0xfe && (second & 0xc0) === 0xc0) || // fec0::/10 site-local (deprecated)
    first === 0xff // ff00::/8 multicast
  );
}

function isRefusedV4(address: number): boolean {
  return REFUSED_V4.some(
    ([network, prefix]) => address >>> (32 - prefix) === network >>> (32 - prefix),
  );
}

/**
 * The IPv4 address an IPv6 address stands for, judged as that address: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d, which makes
 * :: and ::1 judged as 0.0.0.0 and 0.0.0.1) and the NAT64 well-known prefix (64:ff9b::/96).
 */
function embeddedV4(bytes: Uint8Array): number | undefined {
  const word = (i: number) => ((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0);
  const words = [0, 2, 4, 6, 8, 10].map(word);
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  const v4 = (((bytes[12] ?? 0) << 24) | ((bytes[13] ?? 0) << 16) | word(14)) >>> 0;
  if (zeros(0, 5) && (words[5] === 0xffff || words[5] === 0)) return v4;
  if (zeros(0, 4) && words[4] === 0xffff && words[5] === 0) return v4;
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return v4;
  return undefined;
}

function parseV4(address: string): number {
  return address.split(".").reduce((acc, part) => acc * 256 + Number(part), 0) >>> 0;
}

/** 16 bytes of an IPv6 address in text form, or undefined when it is not one. */
function parseV6(address: string): Uint8Array | undefined {
  if (!isIPv6(address)) return undefined;
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = parseV4(dotted[1]);
    tail.push(v4 >>> 16, v4 & 0xffff);
    text = text.slice(0, -dotted[1].length);
    if (text.endsWith(":") && !text.endsWith("::")) text = text.slice(0, -1);
  }
  const [head = "", rest] = text.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const before = groups(head);
  const after = [...(rest === undefined ? [] : groups(rest)), ...tail];
  const fill = rest === undefined ? [] : new Array(8 - before.length - after.length).fill(0);
  const words = rest === undefined ? [...before, ...tail] : [...before, ...fill, ...after];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >>> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}
