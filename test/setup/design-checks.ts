import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { axe, DESKTOP, PHONE } from './signin-browser.js';

// The design checks of the built-in pages' Chromium walks (test/signin-design.e2e-spec.ts,
// test/account-page-design.e2e-spec.ts), one implementation: each state in light and dark, on a
// desktop and a phone, with axe (WCAG 2.1 A/AA), no horizontal overflow and a screenshot; and the
// names read from Chromium's accessibility tree: every button and link has its visible words in its
// accessible name (WCAG 2.5.3, label in name), none is unnamed, and no two share a name unless they
// do the same thing.

/** Roles of the controls a person operates (Chromium's names: a `<summary>` is a DisclosureTriangle). */
const CONTROLS = new Set(['button', 'link', 'textbox', 'checkbox', 'combobox', 'DisclosureTriangle', 'date']);
/** Controls whose name comes from their content: their visible words must be in their name. */
const NAMED_BY_CONTENT = new Set(['button', 'link', 'DisclosureTriangle']);

/** A control as assistive technology gets it, with what it shows and what it does. */
export interface Control {
  role: string;
  /** Its accessible name. */
  name: string;
  /** The words it shows. */
  visible: string;
  /** What it does: a link's href, a button's form (action, method, the values it sends), a toggle's target. */
  action: string;
}

/** The controls in Chromium's accessibility tree. */
export async function controls(page: Page): Promise<Control[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: Array<{ ignored: boolean; role?: { value: string }; name?: { value: string }; backendDOMNodeId?: number }>;
    };
    const found: Control[] = [];
    for (const n of nodes) {
      const role = n.role?.value ?? '';
      if (n.ignored || !CONTROLS.has(role) || n.backendDOMNodeId === undefined) continue;
      const { object } = await cdp.send('DOM.resolveNode', { backendNodeId: n.backendDOMNodeId });
      const { result } = await cdp.send('Runtime.callFunctionOn', {
        objectId: object.objectId!,
        // A form's hidden values are part of what its button does (two "End session" buttons posting
        // to one route end different sessions).
        functionDeclaration: `function () {
          const form = this.closest && this.closest('form');
          const sent = form ? [...form.querySelectorAll('input[type=hidden]')]
            .filter((i) => i.name !== 'csrfToken').map((i) => i.name + '=' + i.value).join('&') : '';
          const action = this.href || (this.type === 'button' && this.getAttribute('data-reveal')
            ? 'toggle:' + this.getAttribute('data-reveal')
            : form ? [form.action, form.method, sent, this.getAttribute('data-webauthn-action') || ''].join(' ')
            : this.id || this.tagName);
          return { visible: this instanceof HTMLElement ? this.innerText : '', action };
        }`,
        returnByValue: true,
      });
      const value = result.value as { visible: string; action: string };
      found.push({
        role,
        name: n.name?.value ?? '',
        visible: value.visible.replace(/\s+/g, ' ').trim(),
        action: value.action,
      });
    }
    return found;
  } finally {
    await cdp.detach();
  }
}

/**
 * Label in name for every button, link and disclosure; no control unnamed; controls that share a
 * name do the same thing. `distinct`: no two controls may share a name at all (a page of rows, where
 * two "Remove" buttons would leave a screen-reader user guessing which row each removes).
 */
export async function checkNames(page: Page, state: string, options: { distinct?: boolean } = {}): Promise<Control[]> {
  const all = await controls(page);
  expect(all.length).toBeGreaterThan(0);
  const mismatched = all.filter(
    (c) => NAMED_BY_CONTENT.has(c.role) && !c.name.toLowerCase().includes(c.visible.toLowerCase()),
  );
  expect({ state, mismatched }).toEqual({ state, mismatched: [] });
  const unnamed = all.filter((c) => !c.name.trim());
  expect({ state, unnamed }).toEqual({ state, unnamed: [] });
  // What each name does: with `distinct`, each control counts as doing something of its own.
  const byName = new Map<string, Set<string>>();
  all.forEach((c, i) => {
    const key = c.name.toLowerCase();
    byName.set(key, (byName.get(key) ?? new Set()).add(options.distinct ? String(i) : c.action));
  });
  const shared = [...byName].filter(([, actions]) => actions.size > 1).map(([name]) => name);
  expect({ state, shared }).toEqual({ state, shared: [] });
  return all;
}

/** The bottom of the page's primary action (the first filled button; else its first button). */
export function primaryBottom(page: Page): Promise<number> {
  return page.evaluate(() => {
    const visible = (el: Element) => (el as HTMLElement).offsetParent !== null;
    const buttons = [...document.querySelectorAll('.card .button')].filter(visible);
    const primary = buttons.find((b) => !b.matches('.button-secondary, .oauth')) ?? buttons[0];
    return primary ? primary.getBoundingClientRect().bottom : Number.POSITIVE_INFINITY;
  });
}

/**
 * Every design check of one page state in light and dark, on a desktop (1280x800) and a phone
 * (390x844), with a screenshot of each in `dir`; then the names ({@link checkNames}). With
 * `primaryBottom`, the phone's first screen must hold the page's primary action (the bottom it
 * returns). Leaves the page light, on the desktop size.
 */
export async function checkDesign(
  page: Page,
  dir: string,
  state: string,
  options: { primaryBottom?: (page: Page) => Promise<number>; distinct?: boolean } = {},
): Promise<Control[]> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      const label = `${state} ${scheme} ${size}`;
      expect({ state: label, violations: await axe(page) }).toEqual({ state: label, violations: [] });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      expect({ state: label, overflow }).toEqual({ state: label, overflow: false });
      if (size === 'phone' && options.primaryBottom) {
        const onFirstScreen = (await options.primaryBottom(page)) <= PHONE.height;
        expect({ state: label, onFirstScreen }).toEqual({ state: label, onFirstScreen: true });
      }
      await page.screenshot({ path: join(dir, `${state.replace(/\W+/g, '-')}-${scheme}-${size}.png`), fullPage: true });
    }
  }
  const all = await checkNames(page, state, { distinct: options.distinct });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
  return all;
}
