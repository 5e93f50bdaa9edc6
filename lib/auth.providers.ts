import type { Provider } from '@nestjs/common';
import { AdapterService } from './adapters/adapter.service.js';

/**
 * The injectables AuthModule registers (besides config, adapter and controller wiring, which
 * auth.module.ts builds). One line per service.
 */
export const AUTH_SERVICES: Provider[] = [
  AdapterService,
];
