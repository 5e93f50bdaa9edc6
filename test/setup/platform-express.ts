// The e2e-express jest project: createTestApp builds Express apps.
process.env.AUTH_TEST_PLATFORM = 'express';
