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
			// The real-n8n suite runs separately (npm run test:e2e): it needs an installed n8n.
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
			// Type checking is `tsc --noEmit` in `npm run lint`; tests only transpile.
			transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
		},
		'<rootDir>/sandbox',
	],
	testTimeout: 30000,
};
