/**
 * The jest config of one end-to-end suite (test/e2e, test/e2e-lines, test/e2e-queue): its global
 * setup starts the suite's n8n instances and sandbox once for every test file, so the files run
 * one at a time. Each suite's config at the root names its folder and timeout.
 */
/** @returns {import('jest').Config} */
module.exports = function e2eSuiteConfig(folder, testTimeout) {
	return {
		testEnvironment: 'node',
		roots: [`<rootDir>/test/${folder}`],
		testMatch: ['**/*.test.ts'],
		transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
		globalSetup: `<rootDir>/test/${folder}/globalSetup.ts`,
		globalTeardown: `<rootDir>/test/${folder}/globalTeardown.ts`,
		maxWorkers: 1,
		testTimeout,
	};
};
