// What is shipped (package.json, nodes/, credentials/, shared/: bundled into both), linted at least as strictly as n8n's
// verification scanner lints a package's source (@n8n/scan-community-package, analyzePackage):
// the package root's default config, its n8n Cloud rules also on the .js and .json files there
// (codex files), as the scanner lints them, and eslint-disable comments ignored, as it ignores them.
// npm run lint runs it after `n8n-node lint`; test/package/publish.test.ts checks it against the scanner.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { config } from '@n8n/node-cli/eslint';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Files in `target` (a folder or file of the node's folder) import only from the folders `allowed`. */
function layer(target, allowed) {
	return {
		target: `./${target}`,
		from: '.',
		except: allowed.map((folder) => `./${folder}`),
		message: `${target} imports only from ${allowed.join(', ')} (CONTRIBUTING.md, Layout).`,
	};
}

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
	{
		// The action node's and the trigger's code imports one way (CONTRIBUTING.md, Layout): only the two
		// .node.ts files import resources/, methods/ and trigger/; transport/ imports nothing of the node.
		files: ['nodes/**/*.ts'],
		rules: {
			'import-x/no-restricted-paths': [
				'error',
				{
					basePath: 'nodes/ComplianceRecords',
					zones: [
						layer('resources', ['resources', 'descriptions', 'helpers', 'transport']),
						layer('descriptions', ['descriptions', 'helpers', 'transport']),
						layer('methods', ['helpers', 'transport']),
						layer('trigger', ['trigger', 'descriptions', 'helpers', 'transport']),
						layer('helpers', ['helpers', 'transport']),
						layer('transport', ['transport']),
						layer('authentication.ts', ['transport']),
					],
				},
			],
		},
	},
	{ linterOptions: { noInlineConfig: true } },
);
