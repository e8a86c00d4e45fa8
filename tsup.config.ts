import { defineConfig } from 'tsup';

// Every node and credential becomes one CommonJS file in dist/ at the path package.json's `n8n`
// field names (tsup keeps each entry's path below the entries' common folder, the root).
// n8n-workflow and luxon stay external: n8n puts its own node_modules on NODE_PATH for the
// packages it loads (docs/dates.md).
export default defineConfig({
	entry: ['nodes/**/*.node.ts', 'credentials/*.credentials.ts'],
	format: 'cjs',
	target: 'node22',
	platform: 'node',
	outDir: 'dist',
	clean: true,
	sourcemap: false,
	splitting: false,
	external: ['n8n-workflow', 'luxon'],
});
