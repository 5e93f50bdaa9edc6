import { describe, expect, it } from '@jest/globals';
import { EmailSignInError } from '../../errors/auth.errors.js';
import { defaultNormalizeIdentifier } from './email.normalize.js';

describe('defaultNormalizeIdentifier', () => {
  it.each([
    ['Victim@Example.COM ', 'victim@example.com'],
    ['  alice@example.test\t', 'alice@example.test'],
    // Full-width and small commercial at become '@' before any check (GHSA-7rqj-j65f-68wh).
    ['victim＠example.com', 'victim@example.com'],
    ['victim﹫example.com', 'victim@example.com'],
    ['ＡＬＩＣＥ@ＥＸＡＭＰＬＥ.ＣＯＭ', 'alice@example.com'],
    // Internationalised domains in one spelling: punycode.
    ['user@exämple.com', 'user@xn--exmple-cua.com'],
    ['user@XN--EXMPLE-CUA.com', 'user@xn--exmple-cua.com'],
    // +tags are kept (EMAIL-07).
    ['a+x@gmail.com', 'a+x@gmail.com'],
    ['first.last@sub.example.co.uk', 'first.last@sub.example.co.uk'],
    // What the browser's type=email check accepts (WHATWG "valid e-mail address"), lower-cased.
    ["o'brien@example.com", "o'brien@example.com"],
    ["O'Brien@Example.com", "o'brien@example.com"],
    ['back`tick@example.com', 'back`tick@example.com'],
    ["!#$%&'*+/=?^_`{|}~-@example.com", "!#$%&'*+/=?^_`{|}~-@example.com"],
    ['a@localhost', 'a@localhost'],
  ])('normalises %j to %j', (input, expected) => {
    expect(defaultNormalizeIdentifier(input)).toBe(expected);
  });

  it.each([
    ['comma-separated list (CVE-2022-35924)', 'attacker@attacker.com,victim@victim.com'],
    ['semicolon list', 'a@x.com;b@y.com'],
    ['quoted local part (GHSA-5jpx-9hw9-2fx4)', '"a@attacker.com"@victim.com'],
    ['quoted local part without @ inside', '"a"@victim.com'],
    ['quoted local part with an apostrophe', `"o'brien"@example.com`],
    ['apostrophe in the domain', "o'brien@exam'ple.com"],
    ['apostrophe and a list', "o'brien@example.com,victim@victim.com"],
    ['apostrophe and CRLF header injection', "o'brien@example.com\r\nBcc: evil@evil.com"],
    ['apostrophe and a space', "o' brien@example.com"],
    ['apostrophe and a tab', "o'\tbrien@example.com"],
    ['apostrophe and a control character', "o'\u0007brien@example.com"],
    ['full-width @ making a second @', 'victim@victim.com＠attacker.com'],
    ['small @ making a second @', 'attacker﹫attacker.com@victim.com'],
    ['HTML in the address (CVE-2022-31127)', 'x@y.com <a href=//evil>'],
    ['angle brackets', '<victim@victim.com>'],
    ['display name', 'Victim <victim@victim.com>'],
    ['two @', 'a@b@c'],
    ['no domain', 'a@'],
    ['no local part', '@b.com'],
    ['no @', 'example.com'],
    ['newline', 'a\n@b.com'],
    ['CRLF header injection', 'a@b.com\r\nBcc: evil@evil.com'],
    ['NUL', 'a\u0000@b.com'],
    ['zero-width space', 'vic\u200btim@example.com'],
    ['right-to-left override', 'a\u202e@example.com'],
    ['inner space', 'a b@example.com'],
    ['no-break space', 'a\u00a0b@example.com'],
    ['comment', 'a(comment)@example.com'],
    ['group syntax', 'group:a@example.com'],
    ['address literal', 'a@[127.0.0.1]'],
    ['backslash', 'a\\@example.com'],
    ['leading dot', '.a@example.com'],
    ['double dot', 'a..b@example.com'],
    ['trailing dot in local part', 'a.@example.com'],
    ['trailing dot in domain', 'a@example.com.'],
    ['empty domain label', 'a@example..com'],
    ['domain label with underscore', 'a@ex_ample.com'],
    ['hyphen at label start', 'a@-example.com'],
    ['local part over 64 bytes', `${'a'.repeat(65)}@example.com`],
    ['address over 254 characters', `a@${['b', 'c', 'd', 'e', 'f'].map((c) => c.repeat(60)).join('.')}.com`],
    ['huge input', `${'a'.repeat(5000)}@example.com`],
    ['empty', ''],
    ['blank', '   '],
  ])('refuses %s', (_label, input) => {
    expect(() => defaultNormalizeIdentifier(input)).toThrow(EmailSignInError);
  });

  it("takes a local-part character exactly when the browser's type=email check does (WHATWG), for every printable ASCII character", () => {
    // WHATWG HTML, "valid e-mail address", as the specification gives it.
    const whatwg =
      /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
    const accepts = (address: string) => {
      try {
        return defaultNormalizeIdentifier(address) === address.toLowerCase();
      } catch (error) {
        if (error instanceof EmailSignInError) return false;
        throw error;
      }
    };
    const differ: string[] = [];
    for (let code = 0x20; code <= 0x7e; code++) {
      const address = `o${String.fromCharCode(code)}brien@example.com`;
      if (accepts(address) !== whatwg.test(address)) differ.push(address);
    }
    expect(differ).toEqual([]);
    expect(accepts("o'brien@example.com")).toBe(true);
  });

  it('refuses, beside an apostrophe, every character that could break a header or an SMTP envelope', () => {
    for (const c of [
      '"',
      '\\',
      ',',
      ';',
      ':',
      '<',
      '>',
      '(',
      ')',
      '[',
      ']',
      ' ',
      '\t',
      '\r',
      '\n',
      '\r\nBcc: e@evil.com',
      '\u0000',
      '\u007f',
      '\u00a0',
      '\u200b',
      '\u2028',
    ]) {
      expect({ c, thrown: thrownBy(() => defaultNormalizeIdentifier(`o'bri${c}en@example.com`)) }).toEqual({
        c,
        thrown: 'EmailSignin',
      });
    }
  });

  it('refuses non-strings with EmailSignin', () => {
    for (const value of [undefined, null, 42, ['a@b.com'], { a: 1 }]) {
      expect(() => defaultNormalizeIdentifier(value as never)).toThrow(EmailSignInError);
    }
  });

  it('is idempotent', () => {
    for (const input of ['Victim＠Example.COM', 'user@exämple.com', 'a+x@gmail.com']) {
      const once = defaultNormalizeIdentifier(input);
      expect(defaultNormalizeIdentifier(once)).toBe(once);
    }
  });

  it('keeps the address out of the error message', () => {
    try {
      defaultNormalizeIdentifier('secret-person@victim.com,attacker@evil.com');
      throw new Error('expected a refusal');
    } catch (error) {
      expect((error as Error).message).not.toContain('secret-person');
      expect((error as EmailSignInError).type).toBe('EmailSignin');
    }
  });
});

function thrownBy(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (error) {
    return (error as EmailSignInError).type;
  }
}
