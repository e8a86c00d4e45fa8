// What is shipped (package.json, nodes/, credentials/, shared/: bundled into both), linted at least as strictly as n8n's
// verification scanner lints a package's source (@n8n/scan-community-package, analyzePackage):
// the package root's default config, its n8n Cloud rules also on the .js and .json files there
// (codex files), as the scanner lints them, and eslint-disable comments ignored, as it ignores them.
// npm run lint runs it after `n8n-node lint`; test/package/publish.test.ts checks it against the scanner.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { config } from '@n8n/node-cli/eslint';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
	config,
	{
		files: ['{nodes,credentials,shared}/**/*.{js,json}'],
		extends: [n8nCommunityNodesPlugin.configs.recommended],
		rules: { 'no-console': 'error' },
	},
	{
		// The scanner parses JSON with the TypeScript parser, as the default config parses package.json.
		files: ['{nodes,credentials}/**/*.json'],
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
	{ linterOptions: { noInlineConfig: true } },
);
