import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Adapter, hashPassword } from '../lib/index.js';
import { DEMO_USER } from './sample.config.js';
import { SamplePassword } from './sample-password.entity.js';

/** Creates the demo credentials user on start, once (the SQLite file keeps it between runs). */
@Injectable()
export class SeedService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Sample');

  constructor(
    @Inject(Adapter) private readonly adapter: Adapter,
    @InjectRepository(SamplePassword) private readonly passwords: Repository<SamplePassword>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (await this.passwords.findOneBy({ email: DEMO_USER.email })) return;
    const user =
      (await this.adapter.getUserByEmail!(DEMO_USER.email)) ??
      (await this.adapter.createUser!({
        id: crypto.randomUUID(),
        email: DEMO_USER.email,
        name: DEMO_USER.name,
        emailVerified: null,
      }));
    await this.passwords.save({
      email: DEMO_USER.email,
      userId: user.id,
      passwordHash: await hashPassword(DEMO_USER.password),
    });
    this.logger.log(`Seeded the demo user ${DEMO_USER.email}`);
  }
}
