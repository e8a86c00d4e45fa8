import { defineConfig } from 'tsup';
import { globSync } from 'node:fs';

// Every node, credential and the sandbox CLI becomes one CommonJS file in dist/ at the path
// package.json's `n8n` and `bin` fields name. n8n-workflow stays external: n8n provides it.
const entries = [
	...globSync('nodes/**/*.node.ts'),
	...globSync('credentials/*.credentials.ts'),
	'sandbox/cli.ts',
	'sandbox/index.ts',
];

export default defineConfig({
	entry: Object.fromEntries(entries.map((file) => [file.replace(/\.ts$/, ''), file])),
	format: 'cjs',
	target: 'node22',
	platform: 'node',
	outDir: 'dist',
	clean: true,
	sourcemap: false,
	splitting: false,
	external: ['n8n-workflow'],
});
