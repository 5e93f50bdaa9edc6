import { describe, expect, it } from '@jest/globals';
import { duplicateMemberName } from './json-members.js';

describe('duplicateMemberName', () => {
  it('finds a name given twice in one object, at any depth', () => {
    expect(duplicateMemberName('{"a":1,"a":2}')).toBe('a');
    expect(duplicateMemberName('{ "sub" : "x" , "iss":"y", "sub" : "z" }')).toBe('sub');
    expect(duplicateMemberName('{"events":{"e":{}},"events":[]}')).toBe('events');
    expect(duplicateMemberName('{"o":{"x":1,"y":{"z":1,"z":2}}}')).toBe('z');
    expect(duplicateMemberName('{"list":[1,{"k":1,"k":2}]}')).toBe('k');
    expect(duplicateMemberName('[[{"deep":[{"a":true,"a":false}]}]]')).toBe('a');
    // The empty name is a name.
    expect(duplicateMemberName('{"":1,"":2}')).toBe('');
  });

  it('compares names after unescaping', () => {
    expect(duplicateMemberName('{"a":1,"\\u0061":2}')).toBe('a');
    expect(duplicateMemberName('{"\\u0073ub":1,"sub":2}')).toBe('sub');
    expect(duplicateMemberName('{"a/b":1,"a\\/b":2}')).toBe('a/b');
    expect(duplicateMemberName('{"\\"":1,"\\u0022":2}')).toBe('"');
    expect(duplicateMemberName('{"\\\\":1,"\\u005c":2}')).toBe('\\');
    // A surrogate pair escaped or written out is the same name.
    expect(duplicateMemberName('{"\\ud83d\\ude00":1,"😀":2}')).toBe('😀');
    // But names are compared as they are, not case-folded or normalised.
    expect(duplicateMemberName('{"a":1,"A":2}')).toBeUndefined();
    expect(duplicateMemberName('{"é":1,"e\\u0301":2}')).toBeUndefined();
  });

  it('reads strings with escapes to their real end: quotes and brackets inside them are text', () => {
    // The value `x","a` holds a quote: a naive split would see a second member "a".
    expect(duplicateMemberName('{"a":"x\\",\\"a","b":1}')).toBeUndefined();
    // An escaped backslash right before the closing quote ends the string there.
    expect(duplicateMemberName('{"a":"x\\\\","a":1}')).toBe('a');
    expect(duplicateMemberName('{"a\\\\":1,"a":2}')).toBeUndefined();
    // Structure characters in names and values are not structure.
    expect(duplicateMemberName('{"{":"}","[":"]",",":":","a":"{\\"a\\":1}"}')).toBeUndefined();
    expect(duplicateMemberName('{"k":"\\"k\\":","k\\"":1}')).toBeUndefined();
  });

  it('tells names from values, and objects apart', () => {
    // A value equal to a name is no duplicate.
    expect(duplicateMemberName('{"a":"a","b":"a"}')).toBeUndefined();
    expect(duplicateMemberName('{"a":["a","a"],"b":{"a":"a"}}')).toBeUndefined();
    // The same name in sibling or nested objects is fine.
    expect(duplicateMemberName('[{"a":1},{"a":2}]')).toBeUndefined();
    expect(duplicateMemberName('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":[{"a":1}]}]}')).toBeUndefined();
    // After a nested object or array closes, the outer object's names still count.
    expect(duplicateMemberName('{"a":{"b":1},"b":2,"c":[{"a":1}],"a":3}')).toBe('a');
    expect(duplicateMemberName('{"x":[],"y":{},"x":null}')).toBe('x');
    // Arrays of strings hold no names.
    expect(duplicateMemberName('["a","a",{"b":1}]')).toBeUndefined();
    expect(duplicateMemberName('"just a string"')).toBeUndefined();
    expect(duplicateMemberName('{}')).toBeUndefined();
  });

  it('walks deep nesting without overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}{"a":1,"a":2}${']'.repeat(100_000)}`;
    expect(duplicateMemberName(deep)).toBe('a');
  });

  it('throws SyntaxError on text that is not JSON', () => {
    for (const text of ['', '{"a":1', '{"a":"x}', "{'a':1}", '{"a":1,}', '{"a" 1}'])
      expect(() => duplicateMemberName(text)).toThrow(SyntaxError);
  });
});
