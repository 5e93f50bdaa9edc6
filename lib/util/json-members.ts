// Duplicate member names in JSON text. `JSON.parse` keeps the last of two members with the same
// name; a token whose claims say one thing to this parser and another to a stricter one (or to a
// reviewer reading the first) must be refused instead (RFC 7519 section 4, RFC 8259 section 4).

/**
 * The first member name that occurs twice in one object of the JSON text `text` (at any depth,
 * objects inside arrays included), compared after unescaping: `"a"` and `"\u0061"` are the same
 * name. `undefined` when every object's names are distinct. Names of different objects never
 * clash. Walks the text without recursion, so deep nesting cannot overflow the stack.
 *
 * @throws SyntaxError when `text` is not JSON
 */
export function duplicateMemberName(text: string): string | undefined {
  JSON.parse(text); // Only well-formed JSON is walked below; anything else throws here.
  // One entry per open container: the names seen so far for an object, null for an array.
  const open: Array<Set<string> | null> = [];
  // True right after `{` or a `,` inside an object: the next string is a member name.
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = endOfString(text, i);
      const names = open[open.length - 1];
      if (nameNext && names) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (names.has(name)) return name;
        names.add(name);
        nameNext = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      nameNext = true;
    } else if (c === '[') {
      open.push(null);
      nameNext = false;
    } else if (c === '}' || c === ']') {
      open.pop();
      nameNext = false;
    } else if (c === ',') {
      nameNext = open[open.length - 1] instanceof Set;
    }
    // Anything else (whitespace, `:`, numbers, true, false, null) says nothing about names.
  }
  return undefined;
}

/** The index of the `"` that closes the string opening at `start`: a backslash escapes the next character. */
function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  throw new SyntaxError('Unterminated string in JSON.');
}
