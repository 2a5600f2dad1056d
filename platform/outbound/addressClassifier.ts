import { isIPv4, isIPv6 } from 'node:net';

/**
 * Why an address must not be called by an outbound webhook (OWASP SSRF), or null when it is a
 * public unicast address. IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64,
 * 6to4) are judged by the IPv4 address inside.
 */
export type BlockReason =
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared_cgnat'
  | 'link_local'
  | 'unique_local'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

type V4Range = [base: number, bits: number, reason: BlockReason];

const V4_RANGES: V4Range[] = [
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'shared_cgnat'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link_local'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'reserved'],
  [v4('192.0.2.0'), 24, 'reserved'],
  [v4('192.88.99.0'), 24, 'reserved'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'reserved'],
  [v4('198.51.100.0'), 24, 'reserved'],
  [v4('203.0.113.0'), 24, 'reserved'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('255.255.255.255'), 32, 'broadcast'],
  [v4('240.0.0.0'), 4, 'reserved'],
];

function v4(address: string): number {
  return address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function classifyV4(n: number): BlockReason | null {
  for (const [base, bits, reason] of V4_RANGES) {
    const size = 2 ** (32 - bits);
    if (n >= base && n < base + size) return reason;
  }
  return null;
}

/** Eight 16-bit groups, or null when it is not an IPv6 address. */
function v6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, ''); // zone id
  if (!isIPv6(text)) return null;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4(dotted[1]!);
    text = text.slice(0, -dotted[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const parse = (s: string | null | undefined) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const fill = tail === null ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  const groups = [...left, ...fill, ...right];
  return groups.length === 8 ? groups : null;
}

function classifyV6(g: number[]): BlockReason | null {
  const embedded = (hi: number, lo: number) => classifyV4(hi * 65536 + lo) ?? null;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (SIIT): judge the IPv4 inside.
  if (zeroUpTo(5) && g[5] === 0xffff) return embedded(g[6]!, g[7]!) ?? null;
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return embedded(g[6]!, g[7]!) ?? null;
  // ::a.b.c.d (deprecated IPv4-compatible): same.
  if (zeroUpTo(6)) return embedded(g[6]!, g[7]!) ?? 'reserved';
  // NAT64 64:ff9b::/96 and the local-use 64:ff9b:1::/48 reach IPv4 through a translator.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embedded(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'private';
  // 6to4 2002:AABB:CCDD::/48 carries an IPv4 address in the next 32 bits.
  if (g[0] === 0x2002) return embedded(g[1]!, g[2]!);
  // Teredo hides its IPv4 server and client; nothing legitimate needs it here.
  if (g[0] === 0x2001 && g[1] === 0) return 'reserved';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'reserved';
  if (g[0] === 0x100 && zeroUpTo(0) && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved';
  const first = g[0]!;
  if ((first & 0xffc0) === 0xfe80) return 'link_local';
  if ((first & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((first & 0xfe00) === 0xfc00) return 'unique_local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  return null;
}

export function classifyAddress(address: string): BlockReason | null {
  if (isIPv4(address)) return classifyV4(v4(address));
  const groups = v6Groups(address.replace(/^\[|\]$/g, ''));
  return groups ? classifyV6(groups) : 'invalid';
}
