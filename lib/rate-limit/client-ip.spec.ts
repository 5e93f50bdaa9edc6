import { describe, expect, it } from '@jest/globals';
import { clientIpBucket, storedClientIp } from './client-ip.js';

describe('clientIpBucket', () => {
  it('keeps IPv4 addresses, unwraps IPv4-mapped IPv6', () => {
    expect(clientIpBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(clientIpBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientIpBucket('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it('groups IPv6 addresses by /64', () => {
    const a = clientIpBucket('2001:db8:85a3:1234:8a2e:370:7334:1');
    expect(a).toBe('2001:db8:85a3:1234::/64');
    expect(clientIpBucket('2001:0db8:85a3:1234:ffff:ffff:ffff:ffff')).toBe(a);
    expect(clientIpBucket('2001:db8:85a3:1234::5')).toBe(a);
    expect(clientIpBucket('2001:db8:85a3:1235::5')).not.toBe(a);
    expect(clientIpBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientIpBucket('::1')).toBe('0:0:0:0::/64');
    expect(clientIpBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientIpBucket('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
  });

  it('gives undefined for missing or malformed addresses', () => {
    for (const bad of [
      undefined,
      '',
      'localhost',
      '1.2.3',
      '999.1.1.1',
      '2001:db8::g',
      'x'.repeat(100),
      '::ffff:999.1.1.1',
    ]) {
      expect(clientIpBucket(bad)).toBeUndefined();
    }
  });
});

describe('storedClientIp (session.storeIp)', () => {
  it('coarse: IPv4 by /24, IPv6 by /48, IPv4-mapped IPv6 as IPv4', () => {
    expect(storedClientIp('203.0.113.7', 'coarse')).toBe('203.0.113.0/24');
    expect(storedClientIp('::ffff:203.0.113.7', 'coarse')).toBe('203.0.113.0/24');
    expect(storedClientIp('2001:db8:85a3:1234:8a2e:370:7334:1', 'coarse')).toBe('2001:db8:85a3::/48');
    expect(storedClientIp('2001:0db8:85a3:ffff::9', 'coarse')).toBe('2001:db8:85a3::/48');
    expect(storedClientIp('::1', 'coarse')).toBe('0:0:0::/48');
    // Never the host part.
    expect(storedClientIp('198.51.100.254', 'coarse')).not.toContain('254');
  });

  it('full keeps the address (normalised); none keeps nothing', () => {
    expect(storedClientIp('203.0.113.7', 'full')).toBe('203.0.113.7');
    expect(storedClientIp('2001:db8::1', 'full')).toBe('2001:db8:0:0:0:0:0:1');
    expect(storedClientIp('203.0.113.7', 'none')).toBeNull();
  });

  it('null for a missing or malformed address', () => {
    for (const bad of [undefined, '', 'localhost', '999.1.1.1', '<b>', 'x'.repeat(100)])
      expect(storedClientIp(bad, 'coarse')).toBeNull();
  });
});
