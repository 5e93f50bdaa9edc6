// A TypeDoc plugin of the API reference (typedoc.json). VitePress compiles every page as a Vue
// template, so a `{{` in a TSDoc comment, even in inline code, would be read as an interpolation:
// rendered as nothing, or failing the build. A page that has one is wrapped in VitePress's
// `::: v-pre` container, which leaves its text as written.
import { MarkdownPageEvent } from 'typedoc-plugin-markdown';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.on(MarkdownPageEvent.END, (page) => {
    if (page.contents?.includes('{{')) page.contents = `::: v-pre\n${page.contents.trimEnd()}\n:::\n`;
  });
}
