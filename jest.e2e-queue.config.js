/**
 * The end-to-end suite in n8n's queue mode (part of `npm run test:e2e`): PostgreSQL, Redis, a main
 * and a worker of n8n 2.40.7, the package installed into both (test/e2e-queue/environment.ts).
 */
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e-queue'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
	globalSetup: '<rootDir>/test/e2e-queue/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e-queue/globalTeardown.ts',
	maxWorkers: 1,
	// A published trigger polls once a minute: a test that waits for two polls needs minutes.
	testTimeout: 300000,
};
