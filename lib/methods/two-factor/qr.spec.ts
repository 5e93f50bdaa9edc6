import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'uqr';
import { loadsOutside, packageLoads } from '../../util/fixtures/lazy-import.fixture.js';
import { qrSvg } from './qr.js';

const LIB = fileURLToPath(new URL('../..', import.meta.url));
const LOADER = 'methods/two-factor/qr.ts';

const URI = 'otpauth://totp/ACME%20Co:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=ACME%20Co';

describe('qrSvg', () => {
  it('is one inline <svg> with a rect and a path: no script, no style, no link, no external reference', async () => {
    const svg = await qrSvg(URI);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" ')).toBe(true);
    expect(svg.endsWith('</svg>')).toBe(true);
    expect(svg.match(/<svg/g)).toHaveLength(1);
    expect(svg).not.toMatch(/<script|<style|<image|<use|<a[\s>]|<foreignObject|href|style=|url\(|\son\w+=/i);
    // The only URL is the SVG namespace.
    expect(svg.match(/https?:/g)).toEqual(['http:']);
    expect(svg).not.toContain('JBSWY3DPEHPK3PXP');
  });

  it('scales: a viewBox of one unit per module and the four-module quiet zone, width 100%, crisp edges', async () => {
    const { size } = encode(URI, { ecc: 'M', border: 4 });
    const svg = await qrSvg(URI);
    expect(svg).toContain(`viewBox="0 0 ${size} ${size}"`);
    expect(svg).toContain('width="100%"');
    expect(svg).not.toMatch(/<svg[^>]*\sheight=/); // the height follows from the width and the viewBox
    expect(svg).toContain('shape-rendering="crispEdges"');
    expect(svg).toContain('<path fill="black" d="M4,4h1v1h-1z'); // the finder pattern starts inside the quiet zone
  });

  it('is an image named by the label, escaped; hidden from assistive technology without one', async () => {
    const named = await qrSvg(URI, { label: 'Scan "this" <code> & add', className: 'qr big' });
    expect(named).toContain('role="img"');
    expect(named).toContain('aria-label="Scan &quot;this&quot; &lt;code&gt; &amp; add"');
    expect(named).toContain('class="qr big"');
    expect(named).not.toContain('aria-hidden');
    const unnamed = await qrSvg(URI);
    expect(unnamed).toContain('aria-hidden="true"');
    expect(unnamed).not.toContain('role=');
    expect(unnamed).not.toContain('class=');
  });

  it('encodes the text as given (the same modules as uqr draws)', async () => {
    const { data, size } = encode(URI, { ecc: 'M', border: 4 });
    const dark = data.flat().filter(Boolean).length;
    const svg = await qrSvg(URI);
    expect(svg.match(/M\d+,\d+h1v1h-1z/g)).toHaveLength(dark);
    expect(dark).toBeGreaterThan(0);
    expect(dark).toBeLessThan(size * size);
  });

  // `import 'nestjs-auth'` does not load uqr: only an authenticator app's enrolment draws a QR code.
  it('is the only file of lib/ that loads uqr, and only with import() (not at start-up)', () => {
    expect(loadsOutside(LIB, 'uqr', LOADER)).toEqual([]);
    expect(packageLoads('uqr', LOADER, readFileSync(join(LIB, LOADER), 'utf8'))).toEqual([
      { line: expect.any(Number), kind: 'dynamic' },
    ]);
  });
});
