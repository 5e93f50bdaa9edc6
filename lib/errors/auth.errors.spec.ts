import { describe, expect, it } from '@jest/globals';
import * as errors from './auth.errors.js';

describe('error names', () => {
  it('print the class name users search for, and keep the stable type', () => {
    const error = new errors.AuthConfigurationError(['secret is missing']);
    expect(String(error)).toMatch(/^AuthConfigurationError: nestjs-auth: invalid AuthModule options/);
    expect(error.stack).toMatch(/^AuthConfigurationError: /);
    expect(error.type).toBe('Configuration');
  });

  it('name every concrete error class after itself', () => {
    const classes = Object.entries(errors).filter(
      ([, value]) => typeof value === 'function' && value.prototype instanceof errors.AuthError,
    ) as Array<[string, new (...args: never[]) => errors.AuthError]>;
    expect(classes.length).toBeGreaterThan(20);
    for (const [name, Class] of classes) {
      if (Object.getOwnPropertyDescriptor(Class, 'type') === undefined) continue; // abstract bases
      const instance = new (Class as unknown as new (...args: unknown[]) => errors.AuthError)(['x'], 'x');
      expect([name, instance.name]).toEqual([name, name]);
    }
  });
});
