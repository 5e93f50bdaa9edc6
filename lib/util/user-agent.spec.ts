import { describe, expect, it } from '@jest/globals';
import { userAgentLabel, userAgentLabelParts } from './user-agent.js';

// Real User-Agent strings, as these browsers send them.
const CASES: [string, string][] = [
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome on macOS',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome on Windows',
  ],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome on Linux',
  ],
  [
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    'Chrome on Android',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
    'Chrome on iOS',
  ],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Windows'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on macOS'],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Linux'],
  ['Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0', 'Firefox on Android'],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15',
    'Firefox on iOS',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    'Safari on macOS',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    'Safari on iOS',
  ],
  [
    'Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    'Safari on iPadOS',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
    'Edge on Windows',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
    'Edge on macOS',
  ],
  [
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.2903.87',
    'Edge on Android',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/131.2903.86 Mobile/15E148 Safari/605.1.15',
    'Edge on iOS',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0',
    'Opera on Windows',
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36',
    'Samsung Internet on Android',
  ],
  [
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome on ChromeOS',
  ],
];

describe('userAgentLabel', () => {
  it.each(CASES)('%s → %s', (ua, label) => {
    expect(userAgentLabel(ua)).toBe(label);
  });

  it('names what it knows and nothing it does not', () => {
    expect(userAgentLabel('curl/8.5.0')).toBeNull();
    expect(userAgentLabel('')).toBeNull();
    expect(userAgentLabel(undefined)).toBeNull();
    expect(userAgentLabel(['Chrome/1'])).toBeNull();
    expect(userAgentLabel('Mozilla/5.0 (Linux; Android 14) SomeApp/1.0')).toBe('Unknown browser on Android');
    expect(userAgentLabel('Firefox/133.0')).toBe('Firefox');
  });

  it('never echoes the header: a hostile value gives a fixed label or null', () => {
    const hostile = '<script>alert(1)</script> (Windows NT 10.0) Chrome/1 "quoted"';
    expect(userAgentLabel(hostile)).toBe('Chrome on Windows');
    expect(userAgentLabel('x'.repeat(100_000) + ' Chrome/1')).toBeNull();
  });
});

describe('userAgentLabelParts', () => {
  it('takes every label userAgentLabel makes apart, so a page can say it in its language', () => {
    for (const [ua, label] of CASES) {
      const parts = userAgentLabelParts(label);
      expect({
        ua,
        parts: parts && `${parts.browser ?? 'Unknown browser'}${parts.system ? ` on ${parts.system}` : ''}`,
      }).toEqual({
        ua,
        parts: label,
      });
    }
    expect(userAgentLabelParts('Unknown browser on Android')).toEqual({ browser: null, system: 'Android' });
    expect(userAgentLabelParts('Firefox')).toEqual({ browser: 'Firefox', system: null });
  });

  it('leaves any other text alone (null): labels of an adapter or an older version', () => {
    for (const label of [
      'Netscape on BeOS',
      'Chrome on',
      ' on macOS',
      'My phone',
      'Chrome on macOS on Linux',
      'Unknown browser',
    ])
      expect(userAgentLabelParts(label)).toBeNull();
  });
});
