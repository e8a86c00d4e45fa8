/**
 * `npm test` runs two projects: this package's nodes and credentials in n8n's engine (test/), and
 * the sandbox's own suite (sandbox/, a package of its own).
 */
/** @type {import('jest').Config} */
module.exports = {
	projects: [
		{
			displayName: 'nodes',
			testEnvironment: 'node',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.ts'],
			// The real-n8n suites (test/e2e, test/e2e-lines, test/e2e-queue) run separately
			// (npm run test:e2e): they need installed n8n versions.
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e'],
			// Type checking is `tsc --noEmit` in `npm run lint`; tests only transpile.
			transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
		},
		'<rootDir>/sandbox',
	],
	testTimeout: 30000,
};
