// n8n's verification scanner (@n8n/scan-community-package) and this project's lint, for the
// tests in test/package/. The scanner is an ES module, which jest's CommonJS runtime cannot
// load, so the tests run this file in a child process: a JSON request on stdin, JSON out.
//
// Request: { tarball?, source?, fixtures: [{ path, text }] }
// Answer:
// - tarball, source (when asked): analyzePackage's answer for each folder, run as n8n runs it
//   before it verifies a package (the unpacked tarball with ['**/*.js', 'package.json'], the
//   source with SOURCE_FILE_PATTERNS), and how many files those patterns matched there;
// - fixtures: for each file (a path in the source, not on disk), the errors the scanner's
//   rules and this project's lint of what is shipped (scripts/eslint.shipped.config.mjs)
//   report, as "line:rule".
import { globSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import {
	analyzePackage,
	buildScanConfig,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';
import { ESLint } from 'eslint';

const TARBALL_PATTERNS = ['**/*.js', 'package.json'];
const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

async function scan(folder, patterns) {
	const { passed, message, details } = await analyzePackage(folder, patterns);
	const files = globSync(patterns, {
		cwd: folder,
		exclude: (name) => name === 'node_modules',
	}).length;
	return { passed, message, details, files };
}

/** The errors an ESLint reports on a file's text, as "line:rule". */
async function errors(eslint, { path, text }) {
	const [result] = await eslint.lintText(text, { filePath: resolve(PROJECT_ROOT, path) });
	return result.messages
		.filter((message) => message.severity === 2)
		.map((message) => `${message.line}:${message.ruleId}`);
}

const request = JSON.parse(readFileSync(0, 'utf8'));
// The scanner's own ESLint setup (analyzePackage's): its config alone, inline comments ignored.
const scanner = new ESLint({
	cwd: PROJECT_ROOT,
	overrideConfigFile: true,
	overrideConfig: await buildScanConfig(),
	allowInlineConfig: false,
});
// The project's lint of what is shipped: npm run lint's pass after `n8n-node lint`.
const project = new ESLint({
	cwd: PROJECT_ROOT,
	overrideConfigFile: 'scripts/eslint.shipped.config.mjs',
});

const answer = {
	tarball: request.tarball && (await scan(request.tarball, TARBALL_PATTERNS)),
	source: request.source && (await scan(request.source, SOURCE_FILE_PATTERNS)),
	fixtures: [],
};
for (const fixture of request.fixtures) {
	answer.fixtures.push({
		path: fixture.path,
		scanner: await errors(scanner, fixture),
		project: await errors(project, fixture),
	});
}
process.stdout.write(JSON.stringify(answer));
