/**
 * Every operation of the Compliance Records node, run by `n8n execute` in a real n8n against the
 * sandbox: one workflow holds them all, so n8n starts once for the lot. Shared by the suites of
 * each n8n line (test/e2e: the package linked into 2.40.7; test/e2e-lines: installed into each
 * line's n8n).
 */
import { randomUUID } from 'node:crypto';

import type { LoggedRequest } from 'compliance-records-sandbox';
import type { WorkflowJson } from '../helpers/n8n/demo';
import type { ExecutionRun } from '../helpers/n8n/instance';
import { nodeOutput } from '../helpers/n8n/instance';
import { serviceGet } from '../helpers/serviceApi';
import { manualTrigger } from '../helpers/n8n/demo';

/** The n8n under test, as these tests use it. */
export interface OperationsTarget {
	/** The action node's type there: `CUSTOM.complianceRecords` (linked) or the package's name (installed). */
	nodeType: string;
	/** Saves the workflow and runs it with `n8n execute`. */
	run(workflow: WorkflowJson): Promise<ExecutionRun>;
	/** A new API key of the main firm (as made in the service's web app) and an n8n credential with it. */
	newApiKeyCredential(name: string): Promise<{ id: string; name: string; apiKey: string }>;
	/** The sandbox's API base URL. */
	baseUrl(): string;
	/** The sandbox's request log. */
	sandboxRequests(): Promise<LoggedRequest[]>;
}

type Params = Record<string, unknown>;

/**
 * Nodes of the workflow: name → parameters; each runs after the trigger or after the node named.
 * `ownKey`: the step uses an API key of its own, so that its requests (Create or Update's listing)
 * can be told apart in the request log from Get Many's.
 */
const stepsFor = (
	reference: string,
	startedAt: string,
): Array<{ name: string; after?: string; ownKey?: true; parameters: Params }> => [
	{ name: 'Get firm', parameters: { resource: 'firm', operation: 'get' } },
	{
		name: 'Create individual',
		after: 'Get firm',
		parameters: {
			operation: 'create',
			status: 'PROSPECT',
			entityType: 'individual',
			firstName: 'Ada',
			lastName: 'Lovelace',
			individualFields: { email: 'ada@example.com', birth: '1815-12-10' },
			additionalFields: {
				partnerId: '={{ $json.staff.find((member) => member.isPartner).id }}',
				serviceIds: '={{ [$json.services[0].id] }}',
				referenceNumber: reference,
				nextReviewDate: '2027-06-30',
			},
		},
	},
	{
		name: 'Get client',
		after: 'Create individual',
		parameters: { operation: 'get', clientId: '={{ $json.id }}' },
	},
	{
		name: 'Update client',
		after: 'Get client',
		parameters: {
			operation: 'update',
			clientId: '={{ $json.id }}',
			updateFields: {
				status: 'EXISTING',
				referenceNumber: `${reference}-B`,
				clearFields: ['nextReviewDate'],
			},
		},
	},
	{
		name: 'Get individual',
		after: 'Update client',
		parameters: {
			resource: 'individual',
			operation: 'get',
			individualId: '={{ $json.entity.id }}',
		},
	},
	{
		name: 'Update individual',
		after: 'Get individual',
		parameters: {
			resource: 'individual',
			operation: 'update',
			individualId: '={{ $json.id }}',
			updateFields: { middleName: 'King', email: 'countess@example.com' },
		},
	},
	{
		name: 'Create or update existing',
		after: 'Update individual',
		ownKey: true,
		parameters: {
			operation: 'upsert',
			referenceNumber: `${reference}-B`,
			status: 'PROSPECT',
			updateStatus: true,
			entityType: 'individual',
			firstName: 'Not',
			lastName: 'Used',
			additionalFields: { nextReviewDate: '2028-01-31' },
		},
	},
	{
		name: 'Create or update new',
		parameters: {
			operation: 'upsert',
			referenceNumber: `${reference}-N`,
			status: 'EXISTING',
			entityType: 'organisation',
			organisationName: 'Canal Boats Ltd',
			organisationType: 'COMPANY',
		},
	},
	{
		name: 'Create sole trader',
		parameters: {
			operation: 'create',
			status: 'EXISTING',
			entityType: 'sole_trader',
			firstName: 'Isambard',
			lastName: 'Brunel',
			soleTraderFields: { tradingName: 'Brunel Bridges' },
		},
	},
	{
		name: 'Import UK company',
		parameters: {
			operation: 'create',
			status: 'PROSPECT',
			entityType: 'import_uk_company',
			companyNumber: '12345678',
		},
	},
	{
		name: 'Create organisation',
		parameters: {
			operation: 'create',
			status: 'PROSPECT',
			entityType: 'organisation',
			organisationName: 'Friends of the Canal Trust',
			organisationType: 'TRUST',
			organisationFields: { identifyingNumber: 'CT-1234' },
		},
	},
	{ name: 'Get 250 clients', parameters: { operation: 'getAll', limit: 250 } },
	{
		name: 'Get clients modified since',
		parameters: { operation: 'getAll', returnAll: true, filters: { sinceModifiedAt: startedAt } },
	},
	{
		name: 'Get all individuals',
		parameters: { resource: 'individual', operation: 'getAll', returnAll: true },
	},
	{
		name: 'Get all organisations',
		parameters: { resource: 'organisation', operation: 'getAll', returnAll: true },
	},
];

/** Registers the tests (in the calling file or describe block): one workflow, every operation. */
export function describeEveryOperation(target: OperationsTarget): void {
	let run: ExecutionRun;
	let apiKey: string;
	let firm: {
		id: string;
		staff: Array<{ id: string; isPartner: boolean }>;
		services: Array<{ id: string }>;
	};
	const startedAt = new Date(Date.now() - 1000).toISOString();
	// Unique per call: the n8n lines register their operations at the same moment, against one firm.
	const reference = `E2E-${randomUUID().slice(0, 8)}`;
	const steps = stepsFor(reference, startedAt);

	beforeAll(async () => {
		const credential = await target.newApiKeyCredential('action node e2e');
		const ownKey = await target.newApiKeyCredential('action node e2e, Create or Update');
		apiKey = credential.apiKey;
		firm = (await serviceGet<{ data: typeof firm }>({ baseUrl: target.baseUrl(), apiKey }, '/firm'))
			.data;
		const nodes = [
			manualTrigger(),
			...steps.map((step, index) => ({
				id: `step-${index}`,
				name: step.name,
				type: target.nodeType,
				typeVersion: 1,
				position: [240 * (1 + stepDepth(step.name)), 160 * index],
				parameters: { resource: 'client', ...step.parameters },
				credentials: {
					complianceRecordsApi: step.ownKey
						? { id: ownKey.id, name: ownKey.name }
						: { id: credential.id, name: credential.name },
				},
			})),
		];
		const connections: Record<
			string,
			{ main: Array<Array<{ node: string; type: string; index: number }>> }
		> = {};
		for (const step of steps) {
			const from = step.after ?? 'Run';
			connections[from] ??= { main: [[]] };
			connections[from].main[0].push({ node: step.name, type: 'main', index: 0 });
		}
		run = await target.run({
			name: 'E2E: every operation',
			nodes,
			connections,
			settings: { executionOrder: 'v1' },
		});
	});

	function stepDepth(name: string): number {
		const step = steps.find((candidate) => candidate.name === name);
		return step?.after ? 1 + stepDepth(step.after) : 0;
	}

	const only = (name: string) => {
		const items = nodeOutput(run, name);
		expect(items).toHaveLength(1);
		return items[0] as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
	};

	test('the run succeeds', () => {
		expect(run.data.resultData.error).toBeUndefined();
		expect(run.status).toBe('success');
	});

	test('Firm → Get returns the firm of the credential', () => {
		expect(only('Get firm')).toMatchObject({
			id: firm.id,
			object: 'firm',
			services: firm.services,
		});
	});

	test('Client → Create (individual) with partner, services, reference and review date', async () => {
		const partner = firm.staff.find((member) => member.isPartner);
		const client = only('Create individual');
		expect(client).toMatchObject({
			object: 'client',
			name: 'Ada Lovelace',
			category: 'INDIVIDUAL',
			state: 'PROSPECT',
			referenceNumber: reference,
			nextReviewDate: '2027-06-30',
			partner: { id: partner?.id },
			services: [firm.services[0].id],
			entity: {
				object: 'individual',
				firstName: 'Ada',
				lastName: 'Lovelace',
				email: 'ada@example.com',
				birth: { day: 10, month: 12, year: 1815 },
			},
		});
	});

	test('Client → Get returns the created client', () => {
		expect(only('Get client')).toMatchObject({
			id: only('Create individual').id,
			name: 'Ada Lovelace',
		});
	});

	test('Client → Update changes only the fields given, and clears the one asked', async () => {
		const updated = only('Update client');
		expect(updated).toMatchObject({
			id: only('Create individual').id,
			state: 'EXISTING',
			referenceNumber: `${reference}-B`,
		});
		expect(updated.nextReviewDate).toBeUndefined();
		expect(updated.services).toEqual([firm.services[0].id]);
		const patch = (await target.sandboxRequests()).find(
			(request) =>
				request.method === 'PATCH' &&
				request.path === `/clients/${updated.id}` &&
				request.headers.authorization === `Bearer ${apiKey}`,
		);
		expect(patch?.body).toEqual({
			status: 'EXISTING',
			referenceNumber: `${reference}-B`,
			nextReviewDate: null,
		});
	});

	test('Individual → Get and Update', () => {
		const individual = only('Get individual');
		expect(individual).toMatchObject({
			object: 'individual',
			id: only('Create individual').entity.id,
			firstName: 'Ada',
		});
		expect(only('Update individual')).toMatchObject({
			id: individual.id,
			middleName: 'King',
			email: 'countess@example.com',
			lastName: 'Lovelace',
		});
	});

	test('Client → Create or Update: the client holding the reference number updated (its entity kept), a new number created', () => {
		expect(only('Create or update existing')).toMatchObject({
			id: only('Create individual').id,
			state: 'PROSPECT',
			referenceNumber: `${reference}-B`,
			nextReviewDate: '2028-01-31',
			entity: { firstName: 'Ada', lastName: 'Lovelace' },
		});
		expect(only('Create or update new')).toMatchObject({
			name: 'Canal Boats Ltd',
			state: 'EXISTING',
			referenceNumber: `${reference}-N`,
			entity: { object: 'organisation', organisationType: 'COMPANY' },
		});
	});

	test('Client → Create: sole trader, UK company from the registry, organisation', () => {
		expect(only('Create sole trader')).toMatchObject({
			category: 'SOLE_TRADER',
			state: 'EXISTING',
			entity: {
				object: 'sole_trader',
				tradingName: 'Brunel Bridges',
				individual: { firstName: 'Isambard', lastName: 'Brunel' },
			},
		});
		expect(only('Import UK company')).toMatchObject({
			name: 'Demo Widgets Ltd',
			category: 'ORGANISATION',
			entity: { object: 'organisation', companyNumber: '12345678', organisationType: 'COMPANY' },
		});
		expect(only('Create organisation')).toMatchObject({
			name: 'Friends of the Canal Trust',
			category: 'ORGANISATION',
			entity: { object: 'organisation', organisationType: 'TRUST', identifyingNumber: 'CT-1234' },
		});
	});

	test('Client → Get Many with a limit of 250 spans two pages, asking only for what is missing', async () => {
		const clients = nodeOutput(run, 'Get 250 clients');
		expect(clients).toHaveLength(250);
		expect(new Set(clients.map((client) => client.id)).size).toBe(250);
		const pages = (await target.sandboxRequests()).filter(
			(request) =>
				request.path === '/clients' &&
				request.method === 'GET' &&
				request.headers.authorization === `Bearer ${apiKey}` &&
				!request.query.sinceModifiedAt,
		);
		expect(pages.map((page) => page.query.limit)).toEqual(['200', '50']);
		expect(pages[1].query.cursor).toEqual(expect.any(String));
	});

	test('Client → Get Many modified since a time: the clients this run created or changed', () => {
		const ids = nodeOutput(run, 'Get clients modified since').map((client) => client.id);
		for (const created of [
			'Create individual',
			'Create sole trader',
			'Import UK company',
			'Create organisation',
			'Create or update new',
		]) {
			expect(ids).toContain(only(created).id);
		}
	});

	test('Individual → Get Many and Organisation → Get Many return every record', async () => {
		const individuals = await serviceTotal('/individuals');
		const organisations = await serviceTotal('/organisations');
		expect(nodeOutput(run, 'Get all individuals')).toHaveLength(individuals);
		expect(nodeOutput(run, 'Get all organisations')).toHaveLength(organisations);
	});

	async function serviceTotal(path: string): Promise<number> {
		return (
			await serviceGet<{ meta: { total: number } }>(
				{ baseUrl: target.baseUrl(), apiKey },
				`${path}?limit=1`,
			)
		).meta.total;
	}
}
