import { isIPv4, isIPv6 } from 'node:net';

/**
 * The rate-limit bucket of a client address: an IPv4 address as is (IPv4-mapped IPv6 included),
 * an IPv6 address by its /64 prefix (one customer usually holds a whole /64, so limiting single
 * addresses would be trivial to dodge). `undefined` for a missing or malformed address.
 */
export function clientIpBucket(ip: string | undefined): string | undefined {
  if (typeof ip !== 'string' || ip.length > 64) return undefined;
  const bare = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return undefined;
  return `${expandIPv6(bare).slice(0, 4).join(':')}::/64`;
}

/** How much of a client address a session keeps (`session.storeIp`). */
export type StoreIpMode = 'coarse' | 'full' | 'none';

/**
 * The address a session records: `coarse` keeps the network only (IPv4 /24 as `203.0.113.0/24`,
 * IPv6 /48 as `2001:db8:1::/48`; an IPv4-mapped IPv6 address counts as IPv4), `full` the address
 * (normalised), `none` nothing. `null` for a missing or malformed address.
 */
export function storedClientIp(ip: string | undefined, mode: StoreIpMode): string | null {
  if (mode === 'none' || typeof ip !== 'string' || ip.length > 64) return null;
  const bare = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  const v4 = mapped && isIPv4(mapped[1]) ? mapped[1] : isIPv4(bare) ? bare : undefined;
  if (v4) return mode === 'full' ? v4 : `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (!isIPv6(bare)) return null;
  const groups = expandIPv6(bare);
  return mode === 'full' ? groups.join(':') : `${groups.slice(0, 3).join(':')}::/48`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case, without leading zeros. */
function expandIPv6(ip: string): string[] {
  let text = ip.toLowerCase();
  // A trailing dotted IPv4 part counts as two groups.
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = text.slice(0, -v4[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16).toString(16));
}
