// The rules `n8n-node lint` (@n8n/node-cli) applies to community packages, with their
// plugins as direct dev dependencies; the sandbox, tests and scripts get the TypeScript rules.
// What is shipped is linted at least as strictly as n8n's verification scanner lints it
// (test/package/scan.test.ts checks): the same files, the same rules, inline disables ignored.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { globalIgnores } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importPlugin from 'eslint-plugin-import-x';
import n8nNodesPlugin from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const communityNodes = n8nCommunityNodesPlugin.configs.recommended;

// The files n8n's scanner lints in a package's source (its SOURCE_FILE_PATTERNS).
const shipped = ['package.json', '{nodes,credentials}/**/*.{js,ts,json}'];

export default tseslint.config(
	globalIgnores(['dist', 'node_modules', 'coverage', '.n8n-demo', 'test-artifacts']),
	{
		files: ['**/*.ts'],
		extends: [
			js.configs.recommended,
			tseslint.configs.recommended,
			importPlugin.configs['flat/recommended'],
		],
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
		},
	},
	{
		// What n8n loads: no dependencies, no Node built-ins, no console (n8n Cloud's rules).
		// The scanner ignores eslint-disable comments, so they have no effect here either.
		files: shipped,
		extends: [communityNodes],
		rules: { 'no-console': 'error' },
		linterOptions: { noInlineConfig: true },
	},
	{
		plugins: { 'n8n-nodes-base': n8nNodesPlugin },
		settings: {
			'import-x/resolver-next': [createTypeScriptImportResolver()],
		},
	},
	{
		// package.json and the codex files (*.node.json), parsed as the scanner parses them.
		files: ['package.json', '{nodes,credentials}/**/*.json'],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
	},
	{
		files: ['package.json'],
		rules: n8nNodesPlugin.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesPlugin.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesPlugin.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
	{
		// The sandbox is a server and the scripts are command-line tools: they print.
		files: ['sandbox/**/*.ts', 'scripts/**/*', 'test/**/*.ts'],
		rules: { 'no-console': 'off' },
	},
);
