import { describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from '../../adapters/memory.adapter.js';
import type { AuthModuleOptions } from '../../config/auth-options.interface.js';
import { AdapterService } from '../../core/adapter.service.js';
import { MissingAdapterMethods, SignOutError } from '../../errors/auth.errors.js';
import { sessionParts } from '../../session/fixtures/session.fixture.js';
import { providerSidKey } from '../../session/provider-sid.js';
import { BackchannelSessions } from './backchannel-sessions.js';

const future = () => new Date(Date.now() + 3_600_000);

/** BackchannelSessions over real session parts and a MemoryAdapter holding two users' sessions. */
async function setup(session: AuthModuleOptions['session'], adapter = new MemoryAdapter()) {
  const parts = await sessionParts({ session }, { adapter });
  const ending = new BackchannelSessions(
    parts.config,
    new AdapterService(adapter, parts.config),
    parts.cache,
    parts.list,
  );
  const [ada, bob] = [
    await adapter.createUser({ email: 'ada@x.test' } as never),
    await adapter.createUser({ email: 'bob@x.test' } as never),
  ];
  for (const u of [ada, bob])
    await adapter.linkAccount({
      userId: u.id,
      type: 'oidc',
      provider: 'bc',
      providerAccountId: `op-${u.email}`,
    } as never);
  const row = (sessionToken: string, userId: string, sid?: string) =>
    adapter.createSession({
      sessionToken,
      userId,
      expires: future(),
      ...(sid ? { providerSid: providerSidKey('bc', sid) } : {}),
    } as never);
  const left = async () =>
    (await Promise.all([ada, bob].map((u) => adapter.listSessionsByUserId(u.id))))
      .flat()
      .map((s) => s.sessionToken)
      .sort();
  return { ...parts, ending, ada, bob, row, left };
}

describe('BackchannelSessions', () => {
  it('sid alone ends exactly the sessions of that OP session (any user), nothing else', async () => {
    const t = await setup({ strategy: 'database' });
    await t.row('a1', t.ada.id, 'op-1');
    await t.row('a2', t.ada.id, 'op-2');
    await t.row('a3', t.ada.id);
    await t.row('b1', t.bob.id, 'op-3');
    expect(await t.ending.end('bc', { sid: 'op-1' })).toBe(1);
    expect(await t.left()).toEqual(['a2', 'a3', 'b1']);
    // The same sid at another provider is another OP session.
    expect(await t.ending.end('other', { sid: 'op-2' })).toBe(0);
    expect(await t.ending.end('bc', { sid: 'no-such' })).toBe(0);
    expect(await t.left()).toEqual(['a2', 'a3', 'b1']);
  });

  it("sub and sid: only that user's sessions of that OP session; an unknown sub ends nothing", async () => {
    const t = await setup({ strategy: 'database' });
    await t.row('a1', t.ada.id, 'op-1');
    await t.row('b1', t.bob.id, 'op-1');
    expect(await t.ending.end('bc', { sub: 'op-bob@x.test', sid: 'op-1' })).toBe(1);
    expect(await t.left()).toEqual(['a1']);
    expect(await t.ending.end('bc', { sub: 'nobody', sid: 'op-1' })).toBe(0);
    expect(await t.left()).toEqual(['a1']);
  });

  it('sub alone ends every session of that user', async () => {
    const t = await setup({ strategy: 'database' });
    await t.row('a1', t.ada.id, 'op-1');
    await t.row('a2', t.ada.id);
    await t.row('b1', t.bob.id);
    expect(await t.ending.end('bc', { sub: 'op-ada@x.test' })).toBe(2);
    expect(await t.left()).toEqual(['b1']);
  });

  it('JWT sessions: the index rows named are revoked by their sid and removed', async () => {
    const t = await setup({ strategy: 'jwt', jwtRevocation: true });
    await t.row('jwt:sid-aaaaaaaa', t.ada.id, 'op-1');
    await t.row('jwt:sid-bbbbbbbb', t.ada.id, 'op-2');
    expect(await t.ending.end('bc', { sid: 'op-1' })).toBe(1);
    expect(await t.left()).toEqual(['jwt:sid-bbbbbbbb']);
    const now = Date.now();
    expect(await t.revocation.isRevoked({ sid: 'sid-aaaaaaaa' }, now)).toBe(true);
    expect(await t.revocation.isRevoked({ sid: 'sid-bbbbbbbb' }, now)).toBe(false);
    expect(await t.ending.end('bc', { sub: 'op-ada@x.test' })).toBe(1);
    expect(await t.revocation.isRevoked({ sid: 'sid-bbbbbbbb' }, now)).toBe(true);
  });

  it('says before anything is used up what this configuration cannot end', async () => {
    const jwt = await setup({ strategy: 'jwt' });
    expect(() => jwt.ending.check({ sid: 'x' })).toThrow(SignOutError);
    // An adapter that cannot list by OP session: a sid-only token cannot be served, sub + sid can.
    class NoSidListing extends MemoryAdapter {
      override listSessionsByProviderSid = undefined as never;
    }
    const db = await setup({ strategy: 'database' }, new NoSidListing());
    expect(() => db.ending.check({ sid: 'x' })).toThrow(MissingAdapterMethods);
    expect(() => db.ending.check({ sub: 'u', sid: 'x' })).not.toThrow();
    expect(() => db.ending.check({ sub: 'u' })).not.toThrow();
  });
});
