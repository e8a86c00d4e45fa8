/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * The package installed the way its users install it (README, "Installation"): the files
 * npm publishes, in `<n8n user folder>/.n8n/nodes/node_modules`, where Settings → Community
 * Nodes and a manual `npm install` put it. n8n then types its nodes with the package's name
 * (`n8n-nodes-compliance-records.complianceRecords`), as the shipped examples do, and they must
 * run with only n8n's own modules around them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { readExample, manualTrigger } from '../helpers/n8n/demo';
import {
	executeWorkflow,
	installPackage,
	n8nCommand,
	packPackage,
	PACKAGE_NAME,
	type N8nOptions,
} from '../helpers/n8n/instance';
import { e2e, nodeOutput, PROJECT_ROOT } from './environment';

let folder: string;
let options: N8nOptions;

beforeAll(async () => {
	// Outside the project, so that nothing but n8n's own node_modules can satisfy a require.
	folder = mkdtempSync(join(tmpdir(), 'compliance-records-install-'));
	await installPackage(folder, await packPackage(PROJECT_ROOT, folder));
	options = { ...e2e().n8nOptions, userFolder: folder, filesDir: join(folder, 'files') };
});

afterAll(() => {
	if (folder) rmSync(folder, { recursive: true, force: true });
});

async function n8n(args: string[]): Promise<void> {
	const result = await n8nCommand(options, args);
	if (result.code !== 0)
		throw new Error(`n8n ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
}

test("an example's Compliance Records node, as shipped, runs from the installed package", async () => {
	const { sandbox } = e2e();
	const credential = {
		id: 'e2eInstalledPkg1',
		name: 'Compliance Records account',
		type: 'complianceRecordsApi',
	};
	const credentialsFile = join(folder, 'credentials.json');
	writeFileSync(
		credentialsFile,
		JSON.stringify([{ ...credential, data: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey } }]),
	);
	await n8n(['import:credentials', `--input=${credentialsFile}`]);

	// The onboarding example's node, untouched but for its inputs and credential.
	const shipped = readExample('onboarding.json').nodes.find(
		(node) => node.name === 'Create individual',
	);
	expect(shipped?.type).toBe(`${PACKAGE_NAME}.complianceRecords`);
	const workflowFile = join(folder, 'workflow.json');
	writeFileSync(
		workflowFile,
		JSON.stringify({
			id: 'e2eInstalledPkg1',
			name: 'Installed package',
			nodes: [
				manualTrigger(),
				{
					...shipped,
					parameters: {
						...shipped?.parameters,
						firstName: 'Mary',
						lastName: 'Seacole',
						// An ISO 8601 week date, read by n8n's own Luxon: the package bundles none.
						additionalFields: { nextReviewDate: '2027-W04-7' },
					},
					credentials: { complianceRecordsApi: { id: credential.id, name: credential.name } },
				},
			],
			connections: { Run: { main: [[{ node: 'Create individual', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		}),
	);
	await n8n(['import:workflow', `--input=${workflowFile}`]);

	const execution = await executeWorkflow(options, 'e2eInstalledPkg1');
	expect(nodeOutput(execution, 'Create individual')).toEqual([
		expect.objectContaining({
			name: 'Mary Seacole',
			status: 'PROSPECT',
			nextReviewDate: '2027-01-31',
		}),
	]);
});
