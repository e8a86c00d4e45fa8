/**
 * The end-to-end suite on each n8n line (part of `npm run test:e2e`): the package installed into
 * n8n 1.123.81 and 2.40.7, run side by side against one sandbox (test/e2e-lines/environment.ts).
 */
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e-lines'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
	globalSetup: '<rootDir>/test/e2e-lines/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e-lines/globalTeardown.ts',
	maxWorkers: 1,
	// A published trigger polls once a minute: a test that waits for two polls needs minutes.
	testTimeout: 300000,
};
