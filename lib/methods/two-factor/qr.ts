import { escapeAttr } from '../../util/html-escape.js';
import { lazyModule } from '../../util/lazy-module.js';

/**
 * `uqr`, loaded on the first QR code (an authenticator app's enrolment): an app starts without it,
 * and one that never enrols an app never loads it. This file is the only one of lib/ that may load
 * it (qr.spec.ts).
 */
const uqr = lazyModule(() => import('uqr'));

export interface QrSvgOptions {
  /** The accessible name (`aria-label`), e.g. "QR code for your authenticator app". */
  label?: string;
  /** A class for the page's stylesheet to size it by (`max-width`: a strict CSP refuses `style=""`). */
  className?: string;
}

/** uqr's opening tag, which the attributes below replace. */
const SVG_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" ';

/**
 * `text` as a QR code, an inline `<svg>` for a page: one `<rect>` and one `<path>`, no script, no
 * style attribute, no external reference (fit for a CSP without `'unsafe-inline'`). It scales to its
 * container (a `viewBox`, `width="100%"`, one unit per module, crisp edges) and keeps the four-module
 * quiet zone scanners expect, on white whatever the page's colours. `role="img"` with the label as
 * its name, or `aria-hidden` without one (the page then says what it is next to it).
 */
export async function qrSvg(text: string, options: QrSvgOptions = {}): Promise<string> {
  const { renderSVG } = await uqr.load();
  const svg = renderSVG(text, { ecc: 'M', border: 4, pixelSize: 1 });
  if (!svg.startsWith(SVG_OPEN)) throw new Error('uqr rendered an unexpected SVG.');
  const attrs = [
    'width="100%"',
    'shape-rendering="crispEdges"',
    options.label ? `role="img" aria-label="${escapeAttr(options.label)}"` : 'aria-hidden="true" focusable="false"',
    ...(options.className ? [`class="${escapeAttr(options.className)}"`] : []),
  ];
  return `${SVG_OPEN}${attrs.join(' ')} ${svg.slice(SVG_OPEN.length)}`;
}
