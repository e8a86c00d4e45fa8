/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * The layout of the nodes' folder (CONTRIBUTING.md, Layout): imports run one way, as the lint of
 * what is shipped enforces (`import-x/no-restricted-paths` in scripts/eslint.shipped.config.mjs,
 * run by `npm run lint`), and no two files outside resources/ share a name.
 */
import { readdirSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';

import { PROJECT_ROOT } from '../helpers/pack';
import { runScanner } from '../helpers/runScanner';

const NODE_FOLDER = 'nodes/ComplianceRecords';

/** A file at `path` of the node's folder importing `from`, and whether the layout allows it. */
const imports: Array<[path: string, from: string, allowed: boolean]> = [
	['transport/fixture.ts', '../helpers/checks', false],
	['transport/fixture.ts', './paging', true],
	['helpers/fixture.ts', '../trigger/listing', false],
	['helpers/fixture.ts', '../descriptions/fields', false],
	['helpers/fixture.ts', '../transport/paging', true],
	['methods/fixture.ts', '../descriptions/fields', false],
	['methods/fixture.ts', '../helpers/firm', true],
	['descriptions/fixture.ts', '../resources/client/get', false],
	['descriptions/fixture.ts', '../helpers/records', true],
	['resources/client/fixture.ts', '../../trigger/listing', false],
	['resources/client/fixture.ts', '../../methods/listSearch', false],
	['resources/client/fixture.ts', '../../descriptions/fields', true],
	['resources/client/fixture.ts', '../../transport/paging', true],
	['trigger/fixture.ts', '../methods/loadOptions', false],
	['trigger/fixture.ts', '../resources/client/get', false],
	['trigger/fixture.ts', '../descriptions/outputFields', true],
	['Fixture.node.ts', './trigger/listing', true],
];

/** The errors the lint of what is shipped reports on each fixture, as "line:rule". */
async function shippedLint(fixtures: Array<{ path: string; text: string }>): Promise<string[][]> {
	const answer = await runScanner<{ fixtures: Array<{ project: string[] }> }>({ fixtures });
	return answer.fixtures.map((fixture) => fixture.project);
}

test('the lint of what is shipped refuses an import against the layout, and takes one along it', async () => {
	const fixtures = imports.map(([path, from]) => ({
		path: `${NODE_FOLDER}/${path}`,
		text: `import * as imported from '${from}';\n\nexport const fixture = imported;\n`,
	}));

	const errors = await shippedLint(fixtures);

	expect(
		imports.map(([path, from], index) => [
			path,
			from,
			!errors[index].includes('1:import-x/no-restricted-paths'),
		]),
	).toEqual(imports);
}, 60_000);

test('no two files of the node folder outside resources/ share a name', () => {
	const folder = join(PROJECT_ROOT, NODE_FOLDER);
	const files = readdirSync(folder, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => relative(folder, join(entry.parentPath, entry.name)))
		.filter((path) => path.split(sep)[0] !== 'resources');
	const sameName = files.filter((path) =>
		files.some((other) => other !== path && basename(other) === basename(path)),
	);

	expect(sameName).toEqual([]);
	expect(files.length).toBeGreaterThan(30);
});
