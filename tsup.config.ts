import { defineConfig } from 'tsup';
import { globSync } from 'node:fs';

// Every node and credential becomes one CommonJS file in dist/ at the path package.json's `n8n`
// field names. n8n-workflow stays external: n8n provides it.
const entries = [...globSync('nodes/**/*.node.ts'), ...globSync('credentials/*.credentials.ts')];

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
