import { describe, expect, it } from '@jest/globals';
import { pageOptionProblems } from './page-options.validate.js';

describe('pageOptionProblems', () => {
  it('accepts paths, URLs and render hooks of known pages', () => {
    expect(pageOptionProblems({ signIn: '/login', error: 'https://app.example.com/oops' })).toEqual([]);
    expect(pageOptionProblems({ render: { signIn: () => '', error: () => '' } })).toEqual([]);
    expect(pageOptionProblems(undefined)).toEqual([]);
  });

  it('refuses a hook of an unknown page, a hook that is not a function, and a path and a hook for one page', () => {
    expect(pageOptionProblems({ render: { signin: () => '' } as never })).toEqual([
      'unknown page pages.render.signin: use one of signIn, signOut, verifyRequest, error.',
    ]);
    expect(pageOptionProblems({ render: { signIn: '<p>' } as never })).toEqual([
      'pages.render.signIn must be a function (context) => html.',
    ]);
    expect(pageOptionProblems({ signIn: '/login', render: { signIn: () => '' } })).toEqual([
      'pages.signIn and pages.render.signIn are both given: keep one (the path would win).',
    ]);
    expect(pageOptionProblems({ render: [] as never })).toHaveLength(1);
    expect(pageOptionProblems({ signIn: 'login' })).toHaveLength(1);
  });

  it('checks `forgotPassword` like the other paths', () => {
    expect(pageOptionProblems({ forgotPassword: '/forgot-password' })).toEqual([]);
    expect(pageOptionProblems({ forgotPassword: 'javascript:alert(1)' })).toEqual([
      `pages.forgotPassword must be a path starting with '/' (or an absolute http(s) URL), not "javascript:alert(1)".`,
    ]);
  });
});
