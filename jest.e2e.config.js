/**
 * The end-to-end suite (`npm run test:e2e`): this package in a real n8n, against the sandbox.
 * One n8n and one sandbox serve every test file (global setup), so the files run one at a time.
 */
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
	globalSetup: '<rootDir>/test/e2e/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e/globalTeardown.ts',
	maxWorkers: 1,
	// A published trigger polls once a minute: a test that waits for two polls needs minutes.
	testTimeout: 240000,
};
