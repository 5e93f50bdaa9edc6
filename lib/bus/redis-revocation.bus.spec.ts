import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectRedis, REDIS_URL, redisAvailable } from '../../test/setup/redis.js';
import { RedisRevocationBus } from './redis-revocation.bus.js';
import type { RevocationBusListener } from './revocation-bus.js';

const describeRedis = (await redisAvailable('RedisRevocationBus')) ? describe : describe.skip;

/** A listener recording what the bus tells it. */
function recorder() {
  const messages: string[] = [];
  const states: boolean[] = [];
  const listener: RevocationBusListener = { message: (m) => messages.push(m), state: (c) => states.push(c) };
  return { messages, states, listener };
}

async function until(check: () => boolean, ms = 5000): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

/** The ids of the subscribed (pub/sub) connections named `name`. */
async function subscriberIds(admin: Redis, name: string): Promise<string[]> {
  const list = (await admin.client('LIST')) as string;
  return list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `) && / sub=[1-9]/.test(line))
    .map((line) => /^id=(\d+)/.exec(line)![1]!);
}

describeRedis('RedisRevocationBus (real Redis)', () => {
  const channel = `nestjs-auth-test-${randomUUID()}`;
  let admin: Redis;
  const clients: Redis[] = [];
  const buses: RedisRevocationBus[] = [];
  /** An app's client, named so that the test finds its subscriber connection. */
  const appClient = (name: string) => {
    const client = new Redis(REDIS_URL, { connectionName: name, lazyConnect: true });
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    admin = (await connectRedis())!;
  });
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
    await admin.quit();
  });

  it('refuses something that is not an ioredis client', () => {
    expect(() => new RedisRevocationBus({} as never)).toThrow(/needs an ioredis client/);
  });

  it('delivers a message to every subscribed instance, the publisher included', async () => {
    const [a, b] = [recorder(), recorder()];
    const busA = new RedisRevocationBus(appClient(`a-${channel}`), { channel });
    const busB = new RedisRevocationBus(appClient(`b-${channel}`), { channel });
    buses.push(busA, busB);
    await Promise.all([busA.subscribe(a.listener), busB.subscribe(b.listener)]);
    expect(a.states).toEqual([true]);
    await busB.publish('hello');
    await until(() => a.messages.length === 1 && b.messages.length === 1);
    expect(a.messages).toEqual(['hello']);
    // Another channel is not heard.
    await admin.publish(`${channel}-other`, 'not for us');
    await busB.publish('second');
    await until(() => a.messages.length === 2);
    expect(a.messages).toEqual(['hello', 'second']);
  });

  it('reconnects after its connection is killed (CLIENT KILL), telling the listener, and hears messages again', async () => {
    const name = `k-${randomUUID().slice(0, 8)}`;
    const r = recorder();
    const bus = new RedisRevocationBus(appClient(name), { channel });
    buses.push(bus);
    await bus.subscribe(r.listener);
    const [id] = await subscriberIds(admin, name);
    expect(id).toBeDefined();
    await admin.client('KILL', 'ID', id!);
    await until(() => r.states.length >= 2);
    expect(r.states.slice(0, 2)).toEqual([true, false]);
    const back = await until(() => r.states.at(-1) === true);
    expect(back).toBeLessThan(3000);
    const [again] = await subscriberIds(admin, name);
    expect(again).toBeDefined();
    expect(again).not.toBe(id);
    await admin.publish(channel, 'after reconnect');
    await until(() => r.messages.includes('after reconnect'));
  });

  it('opens a new connection when the client gives up reconnecting (retryStrategy: () => null)', async () => {
    const name = `g-${randomUUID().slice(0, 8)}`;
    const client = new Redis(REDIS_URL, { connectionName: name, retryStrategy: () => null });
    client.on('error', () => undefined);
    clients.push(client);
    const r = recorder();
    const bus = new RedisRevocationBus(client, { channel });
    buses.push(bus);
    await bus.subscribe(r.listener);
    const [id] = await subscriberIds(admin, name);
    await admin.client('KILL', 'ID', id!);
    await until(() => r.states.length === 3);
    expect(r.states).toEqual([true, false, true]);
    await admin.publish(channel, 'still here');
    await until(() => r.messages.includes('still here'));
  });

  it('close() ends its subscriber connection (not the client it was given) and reports nothing more', async () => {
    const name = `c-${randomUUID().slice(0, 8)}`;
    const client = appClient(name);
    const r = recorder();
    const bus = new RedisRevocationBus(client, { channel });
    await bus.subscribe(r.listener);
    expect(await subscriberIds(admin, name)).toHaveLength(1);
    await bus.close();
    await until(() => r.states.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await subscriberIds(admin, name)).toHaveLength(0);
    expect(r.states).toEqual([true]);
    expect(await client.ping()).toBe('PONG');
  });
});
