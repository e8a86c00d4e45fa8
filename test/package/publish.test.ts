/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * What `npm publish` would publish, checked the way n8n checks a community package before it
 * lists it as verified: n8n's verification scanner (@n8n/scan-community-package) on the
 * unpacked tarball and on the source. And this project's lint, which must report at least what
 * the scanner reports in the files that are shipped, so that a mistake shows in `npm run lint`
 * first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { pack, PROJECT_ROOT, type Packed } from '../helpers/pack';
import { runScanner } from '../helpers/runScanner';

interface ScanAnswer {
	passed: boolean;
	message?: string;
	details?: string;
	/** How many files the scanner's patterns matched. */
	files: number;
}

interface ScannerAnswer {
	tarball: ScanAnswer;
	source: ScanAnswer;
	fixtures: Array<{ path: string; scanner: string[]; project: string[] }>;
}

/** Files that break the scanner's rules, one kind of mistake each, at paths that are shipped. */
const fixtures = [
	{
		mistake: 'a node importing a Node built-in, reading process and printing',
		path: 'nodes/ComplianceRecords/Fixture.node.ts',
		text: "import { get } from 'node:https';\nexport const leak = () => {\n\tconsole.log(process.env.API_KEY);\n\treturn get;\n};\n",
	},
	{
		mistake: 'eslint-disable comments in a node (the scanner ignores them)',
		path: 'nodes/ComplianceRecords/Fixture.node.ts',
		text:
			"// eslint-disable-next-line no-console\nconsole.log('hidden');\n" +
			'/* eslint-disable @n8n/community-nodes/no-restricted-globals */\nexport const home = process.env.HOME;\n',
	},
	{
		mistake: 'a plain JavaScript file in a node folder requiring a Node built-in',
		path: 'nodes/ComplianceRecords/fixture.js',
		text: "const { readFileSync } = require('fs');\nmodule.exports = () => readFileSync('token.txt', 'utf8');\n",
	},
	{
		mistake: 'a hard-coded secret in a codex file',
		path: 'nodes/ComplianceRecords/Fixture.node.json',
		text: '{\n\t"node": "n8n-nodes-compliance-records.fixture",\n\t"apiKey": "ak-7f3c9d21e8b64a05b9c1d2e3f4a5b6c7"\n}\n',
	},
	{
		mistake: 'a credential whose secret field is not a password field',
		path: 'credentials/FixtureApi.credentials.ts',
		text:
			"import type { ICredentialType, INodeProperties } from 'n8n-workflow';\n\n" +
			'export class FixtureApi implements ICredentialType {\n' +
			"\tname = 'fixtureApi';\n\tdisplayName = 'Fixture API';\n\ticon = 'file:../icons/complianceRecords.svg' as const;\n" +
			"\tdocumentationUrl = 'https://example.com/docs';\n" +
			"\tproperties: INodeProperties[] = [{ displayName: 'API Secret', name: 'apiSecret', type: 'string', default: '' }];\n}\n",
	},
	{
		mistake: 'an overrides field in package.json',
		path: 'package.json',
		text: readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8').replace(
			/\n}\s*$/,
			',\n\t"overrides": { "linkedom": "0.18.14" }\n}\n',
		),
	},
];

/** The files n8n's scanner is to lint in the source: package.json, and nodes/ and credentials/'s .js, .ts, .json. */
function sourceFiles(): number {
	const inFolder = (folder: string) =>
		readdirSync(join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true }).filter(
			(entry) => entry.isFile() && /\.(js|ts|json)$/.test(entry.name),
		).length;
	return 1 + inFolder('nodes') + inFolder('credentials');
}

let packed: Packed;
let answer: ScannerAnswer;

beforeAll(async () => {
	packed = await pack();
	answer = await runScanner<ScannerAnswer>(
		{ tarball: packed.folder, source: PROJECT_ROOT, fixtures },
		join(packed.folder, '..'),
	);
}, 120_000);

afterAll(() => packed?.remove());

describe('the tarball', () => {
	test('holds the nodes, the credentials, their icons and codex files, package.json, README and LICENSE: no sandbox, no bin', () => {
		expect(packed.files).toEqual([
			'LICENSE',
			'README.md',
			'dist/credentials/ComplianceRecordsApi.credentials.js',
			'dist/credentials/ComplianceRecordsOAuth2Api.credentials.js',
			'dist/icons/complianceRecords.dark.svg',
			'dist/icons/complianceRecords.svg',
			'dist/nodes/ComplianceRecords/ComplianceRecords.node.js',
			'dist/nodes/ComplianceRecords/ComplianceRecords.node.json',
			'dist/nodes/ComplianceRecords/ComplianceRecordsTrigger.node.js',
			'dist/nodes/ComplianceRecords/ComplianceRecordsTrigger.node.json',
			'package.json',
		]);
	});

	test('its package.json names files the tarball holds, and declares no bin and no runtime dependency', () => {
		const manifest = JSON.parse(readFileSync(join(packed.folder, 'package.json'), 'utf8'));
		expect(packed.files).toEqual(
			expect.arrayContaining([...manifest.n8n.nodes, ...manifest.n8n.credentials]),
		);
		expect(manifest).not.toHaveProperty('bin');
		expect(manifest).not.toHaveProperty('dependencies');
	});
});

describe("n8n's verification scanner", () => {
	test('passes the tarball: its compiled JavaScript and package.json', () => {
		const analysed = packed.files.filter(
			(file) => file.endsWith('.js') || file === 'package.json',
		).length;
		expect(answer.tarball).toEqual({ passed: true, files: analysed });
	});

	test('passes the source: package.json and the nodes and credentials', () => {
		expect(answer.source).toEqual({ passed: true, files: sourceFiles() });
	});
});

describe("this project's lint reports every error the scanner reports in a shipped file", () => {
	test.each(fixtures.map(({ mistake, path }, index) => ({ mistake, path, index })))(
		'$mistake ($path)',
		({ index }) => {
			const { scanner: scanned, project } = answer.fixtures[index];
			expect(scanned).not.toEqual([]);
			expect(project).toEqual(expect.arrayContaining(scanned));
		},
	);
});
