/**
 * Every jest project. `npm test` runs the unit projects, `nodes` (this package in n8n's engine)
 * and `sandbox` (the sandbox's own suite); `npm run test:e2e` (scripts/test-e2e.sh) runs the
 * end-to-end suites in real n8n, one project after the other: each one's global setup starts
 * its n8n instances and sandbox once for all its files, which therefore run one at a time.
 */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }] }; // type checks: `tsc` in `npm run lint`

/** An end-to-end suite in `test/<folder>`, its tests given minutes (test/helpers/n8n/e2eTimeout.ts). */
const e2eSuite = (folder) => ({
	displayName: folder,
	testEnvironment: 'node',
	roots: [`<rootDir>/test/${folder}`],
	testMatch: ['**/*.test.ts'],
	transform,
	globalSetup: `<rootDir>/test/${folder}/globalSetup.ts`,
	globalTeardown: `<rootDir>/test/${folder}/globalTeardown.ts`,
	setupFilesAfterEnv: ['<rootDir>/test/helpers/n8n/e2eTimeout.ts'],
});

/** @type {import('jest').Config} */
module.exports = {
	projects: [
		{
			displayName: 'nodes',
			testEnvironment: 'node',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.ts'],
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e'],
			transform,
		},
		'<rootDir>/sandbox',
		e2eSuite('e2e'),
		e2eSuite('e2e-lines'),
		e2eSuite('e2e-queue'),
	],
	testTimeout: 30000,
};
