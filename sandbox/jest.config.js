/** @type {import('jest').Config} */
module.exports = {
	displayName: 'sandbox',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// Type checking is `tsc --noEmit -p sandbox` in the root's `npm run lint`; tests only transpile.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
	testTimeout: 30000,
};
