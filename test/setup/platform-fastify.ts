// The e2e-fastify jest project: createTestApp builds Fastify apps.
process.env.AUTH_TEST_PLATFORM = 'fastify';
