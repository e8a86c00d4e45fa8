/* eslint-disable no-console -- development tooling: runs in Node, not in n8n; prints what it measures */
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ComplianceRecords } from '../../../../nodes/ComplianceRecords/ComplianceRecords.node';
import { asAiTool, runNode, TestNodeTypes } from '../../../helpers';
import { useSandbox } from '../../../helpers/sandbox';
import { serviceGet, type ServiceClient } from '../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 60 });

/** A node of version 2, whose Simplify is on unless turned off. */
const run = (parameters: INodeParameters, typeVersion = 2) =>
	runNode({ credentials: credentials(), parameters, typeVersion });

const tool = asAiTool(new ComplianceRecords());
const toolTypes = new TestNodeTypes([tool]);

/** The node as an AI agent's tool, version 2: the call's arguments are its input item, where `$fromAI()` reads them. */
const runTool = (parameters: INodeParameters, toolCall: IDataObject = {}) =>
	runNode({
		credentials: credentials(),
		parameters,
		typeVersion: 2,
		nodeType: tool,
		nodeTypes: toolTypes,
		input: [toolCall],
	});

const stored = async <T = IDataObject>(path: string) =>
	(await serviceGet<{ data: T }>(sandbox(), path)).data;

/** What Simplify keeps of a full client: the ten fields most used, in that order, as the README lists them. */
const simplifiedClient = (client: ServiceClient) => ({
	id: client.id,
	name: client.name,
	referenceNumber: client.referenceNumber ?? null,
	state: client.state,
	amlDeterminationStatus: client.amlDeterminationStatus,
	riskLevel: client.lastAmlDetermination?.riskLevel ?? null,
	nextReviewDate: client.nextReviewDate ?? null,
	partner: client.partner?.name ?? null,
	manager: client.manager?.name ?? null,
	category: client.category,
});

/** What Simplify keeps of a client list item: no partner or manager to name, so its last change too. */
const simplifiedListItem = (client: ServiceClient) => {
	const { partner, manager, ...listed } = simplifiedClient(client);
	expect([partner, manager]).toEqual([null, null]); // not in list items
	return { ...listed, lastModifiedAt: client.lastModifiedAt };
};

/** An address as the flat records write it: its non-empty lines, in letter order, on one line. */
const oneLine = (address: unknown) => {
	if (!address) return null;
	const lines = ['line1', 'line2', 'city', 'county', 'postcode', 'country'].map(
		(key) => (address as IDataObject)[key],
	);
	return lines.filter((line) => typeof line === 'string' && line !== '').join(', ') || null;
};

async function fullClients(): Promise<ServiceClient[]> {
	const list = await stored<Array<{ id: string }>>('/clients?limit=60');
	const clients = await Promise.all(
		list.map((item) => stored<ServiceClient>(`/clients/${item.id}`)),
	);
	sandbox().clearRequests();
	return clients;
}

/** A full client with every optional field set, and one with none of its assignments. */
async function completeAndSparse(): Promise<[ServiceClient, ServiceClient]> {
	const clients = await fullClients();
	const complete = clients.find(
		(client) =>
			client.partner &&
			client.manager &&
			client.businessUnit &&
			client.lastAmlDetermination &&
			client.referenceNumber,
	)!;
	const sparse = clients.find((client) => !client.partner && !client.lastAmlDetermination)!;
	return [complete, sparse];
}

describe('Simplify (version 2): at most 10 fields, the most used first, names instead of references', () => {
	it('a version 1 node keeps the full output: it has no Simplify', async () => {
		const [client] = await fullClients();

		const result = await run({ resource: 'client', operation: 'get', clientId: client.id }, 1);

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([client]);
	});

	it('with Simplify turned off, the full client', async () => {
		const [client] = await fullClients();

		const result = await run({
			resource: 'client',
			operation: 'get',
			clientId: client.id,
			simplify: false,
		});

		expect(result.json).toEqual([client]);
	});

	it('Client > Get: the ten fields a compliance team uses most, in that order, partner and manager by name; one request', async () => {
		const [complete, sparse] = await completeAndSparse();

		const results = [
			await run({ resource: 'client', operation: 'get', clientId: complete.id }),
			await run({ resource: 'client', operation: 'get', clientId: sparse.id }),
		];

		expect(results.map((result) => result.error)).toEqual([undefined, undefined]);
		expect(results.map((result) => result.json)).toEqual([
			[simplifiedClient(complete)],
			[simplifiedClient(sparse)],
		]);
		expect(Object.keys(results[0].json[0])).toEqual([
			'id',
			'name',
			'referenceNumber',
			'state',
			'amlDeterminationStatus',
			'riskLevel',
			'nextReviewDate',
			'partner',
			'manager',
			'category',
		]);
		expect(results[0].json[0]).toMatchObject({
			partner: expect.stringMatching(/^\w+ \w+$/),
			riskLevel: expect.any(String),
		});
		expect(results[1].json[0]).toMatchObject({ partner: null, riskLevel: null });
		expect(
			sandbox()
				.requests()
				.map((request) => request.path),
		).toEqual([`/clients/${complete.id}`, `/clients/${sparse.id}`]);
	});

	it("Client > Get Many: the list item's fields of those ten, and when it last changed (a sync's next 'Modified Since')", async () => {
		const listItems = await stored<ServiceClient[]>('/clients?limit=50');
		sandbox().clearRequests();

		const result = await run({ resource: 'client', operation: 'getAll' });

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(listItems.map(simplifiedListItem));
		expect(Object.keys(result.json[0])).toEqual([
			'id',
			'name',
			'referenceNumber',
			'state',
			'amlDeterminationStatus',
			'riskLevel',
			'nextReviewDate',
			'category',
			'lastModifiedAt',
		]);
		expect(sandbox().requests()).toHaveLength(1);
	});

	it('Client > Create and Update output the simplified client', async () => {
		const firm = await stored<{
			staff: Array<{ id: string; firstName: string; lastName: string; isPartner: boolean }>;
		}>('/firm');
		const partner = firm.staff.find((member) => member.isPartner)!;

		const created = await run({
			resource: 'client',
			operation: 'create',
			status: 'PROSPECT',
			entityType: 'individual',
			firstName: 'Jane',
			lastName: 'Doe',
			additionalFields: { nextReviewDate: '2027-01-31' },
		});
		const id = String(created.json[0]?.id);
		const updated = await run({
			resource: 'client',
			operation: 'update',
			clientId: id,
			updateFields: { partnerId: partner.id },
		});

		expect([created.error, updated.error]).toEqual([undefined, undefined]);
		const client = await stored<ServiceClient>(`/clients/${id}`);
		expect(updated.json).toEqual([simplifiedClient(client)]);
		expect(created.json).toEqual([{ ...simplifiedClient(client), partner: null }]);
		expect(created.json[0]).toMatchObject({
			name: 'Jane Doe',
			state: 'PROSPECT',
			nextReviewDate: '2027-01-31',
		});
		expect(updated.json[0].partner).toBe(`${partner.firstName} ${partner.lastName}`);
	});

	it('Individual > Get, Get Many and Update: name, email, date of birth, address on one line, client ID', async () => {
		const individuals = await stored<IDataObject[]>('/individuals?limit=60');
		const withYearOnly = individuals.find(
			(individual) => (individual.birth as IDataObject)?.day === undefined && individual.birth,
		)!;
		const full = individuals.find(
			(individual) =>
				individual.middleName &&
				(individual.birth as IDataObject)?.day &&
				individual.residentialAddress &&
				individual.client,
		)!;
		sandbox().clearRequests();

		const got = await run({
			resource: 'individual',
			operation: 'get',
			individualId: full.id as string,
		});
		const many = await run({ resource: 'individual', operation: 'getAll', limit: 60 });
		const updated = await run({
			resource: 'individual',
			operation: 'update',
			individualId: withYearOnly.id as string,
			updateFields: { email: 'changed@example.com' },
		});

		expect([got.error, many.error, updated.error]).toEqual([undefined, undefined, undefined]);
		const birth = full.birth as { day: number; month: number; year: number };
		expect(got.json).toEqual([
			{
				id: full.id,
				name: `${full.firstName} ${full.middleName} ${full.lastName}`,
				email: full.email ?? null,
				dateOfBirth: `${birth.year}-${String(birth.month).padStart(2, '0')}-${String(birth.day).padStart(2, '0')}`,
				residentialAddress: oneLine(full.residentialAddress),
				clientId: (full.client as IDataObject).id,
			},
		]);
		expect(many.json).toHaveLength(individuals.length);
		expect(many.json.map((individual) => Object.keys(individual))).toEqual(
			individuals.map(() => [
				'id',
				'name',
				'email',
				'dateOfBirth',
				'residentialAddress',
				'clientId',
			]),
		);
		expect(updated.json).toEqual([
			expect.objectContaining({
				id: withYearOnly.id,
				email: 'changed@example.com',
				dateOfBirth: String((withYearOnly.birth as IDataObject).year),
			}),
		]);
	});

	it('Organisation > Get Many: type, company number, registered address on one line, client ID', async () => {
		const organisations = await stored<IDataObject[]>('/organisations?limit=5');
		sandbox().clearRequests();

		const result = await run({ resource: 'organisation', operation: 'getAll', limit: 5 });

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(
			organisations.map((organisation) => ({
				id: organisation.id,
				name: organisation.name,
				organisationType: organisation.organisationType,
				companyNumber: organisation.companyNumber ?? null,
				identifyingNumber: organisation.identifyingNumber ?? null,
				registeredAddress: oneLine(organisation.registeredAddress),
				clientId: (organisation.client as IDataObject | undefined)?.id ?? null,
			})),
		);
	});

	it('Firm > Get: the MLRO, partners, managers, reviewers, staff, business units and services by name', async () => {
		const firm = await stored<{
			id: string;
			name: string;
			mlroStaffId: string;
			staff: Array<{
				id: string;
				firstName: string;
				lastName: string;
				isPartner: boolean;
				isManager: boolean;
				isReviewer: boolean;
			}>;
			businessUnits: Array<{ id: string; name: string }>;
			services: Array<{ id: string; name: string }>;
		}>('/firm');
		sandbox().clearRequests();
		const named = (members: typeof firm.staff) =>
			members.map((member) => `${member.firstName} ${member.lastName}`);
		const mlro = firm.staff.find((member) => member.id === firm.mlroStaffId)!;

		const result = await run({ resource: 'firm', operation: 'get' });

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([
			{
				id: firm.id,
				name: firm.name,
				mlro: `${mlro.firstName} ${mlro.lastName}`,
				partners: named(firm.staff.filter((member) => member.isPartner)),
				managers: named(firm.staff.filter((member) => member.isManager)),
				reviewers: named(firm.staff.filter((member) => member.isReviewer)),
				staff: named(firm.staff),
				businessUnits: firm.businessUnits.map((unit) => unit.name),
				services: firm.services.map((service) => service.name),
			},
		]);
		expect(sandbox().requests()).toHaveLength(1);
	});

	it.each([
		['Client > Get', 10, { resource: 'client', operation: 'get' }],
		['Client > Get Many', 9, { resource: 'client', operation: 'getAll', limit: 60 }],
		['Individual > Get', 6, { resource: 'individual', operation: 'get' }],
		['Individual > Get Many', 6, { resource: 'individual', operation: 'getAll', limit: 60 }],
		['Organisation > Get Many', 7, { resource: 'organisation', operation: 'getAll', limit: 60 }],
		['Firm > Get', 9, { resource: 'firm', operation: 'get' }],
	])('%s: %i fields', async (_label, fields, parameters) => {
		const [client] = await fullClients();
		const [individual] = await stored<Array<{ id: string }>>('/individuals?limit=1');

		const result = await run({ ...parameters, clientId: client.id, individualId: individual.id });

		expect(result.error).toBeUndefined();
		expect(result.json.length).toBeGreaterThan(0);
		for (const record of result.json) expect(Object.keys(record)).toHaveLength(fields);
	});

	it('makes what an AI agent reads several times smaller (the README quotes these figures)', async () => {
		const [client] = await fullClients();
		const measured: Array<[string, INodeParameters]> = [
			['Client > Get Many, 50 clients', { resource: 'client', operation: 'getAll', limit: 50 }],
			['Client > Get, 1 client', { resource: 'client', operation: 'get', clientId: client.id }],
			['Individual > Get Many, 50', { resource: 'individual', operation: 'getAll', limit: 50 }],
			['Organisation > Get Many, 50', { resource: 'organisation', operation: 'getAll', limit: 50 }],
			['Firm > Get', { resource: 'firm', operation: 'get' }],
		];
		// What n8n hands an agent or an MCP client: the output items' JSON as one array.
		const bytes = async (parameters: INodeParameters, simplify: boolean) => {
			const result = await run({ ...parameters, simplify });
			expect(result.error).toBeUndefined();
			return Buffer.byteLength(JSON.stringify(result.json));
		};
		const rows: Array<[string, number, number]> = [];
		for (const [label, parameters] of measured) {
			rows.push([label, await bytes(parameters, false), await bytes(parameters, true)]);
		}
		console.log(
			['Output | full bytes | simplified bytes | simplified/full']
				.concat(
					rows.map(
						([label, full, flat]) =>
							`${label} | ${full} | ${flat} | ${Math.round((100 * flat) / full)} %`,
					),
				)
				.join('\n'),
		);
		const [clientList, oneClient] = rows;
		expect(clientList[2]).toBeLessThan(clientList[1] / 2);
		expect(oneClient[2]).toBeLessThan(oneClient[1] / 4);
	});
});

/** The parameters n8n keeps for a node (the editor shows them), defaults filled in. */
const shown = (
	description: typeof tool.description,
	values: INodeParameters,
	typeVersion: number,
) =>
	NodeHelpers.getNodeParameters(
		description.properties,
		values,
		true,
		false,
		{ typeVersion },
		description,
	) ?? {};

describe("Output, as an AI agent's tool (version 2): Simplified, Raw or Selected Fields", () => {
	it('the editor shows Output, Simplified by default, in place of Simplify; the node itself keeps Simplify', () => {
		const { description } = new ComplianceRecords();
		for (const [resource, operation] of [
			['client', 'create'],
			['client', 'get'],
			['client', 'getAll'],
			['client', 'update'],
			['individual', 'get'],
			['individual', 'getAll'],
			['individual', 'update'],
			['organisation', 'getAll'],
			['firm', 'get'],
		]) {
			const asTool = shown(tool.description, { resource, operation }, 2);
			expect(asTool).toMatchObject({ output: 'simple' });
			expect(asTool).not.toHaveProperty('simplify');
			expect(asTool).not.toHaveProperty('fields');
			expect(shown(tool.description, { resource, operation, output: 'fields' }, 2)).toMatchObject({
				output: 'fields',
				fields: [],
			});
			expect(shown(tool.description, { resource, operation }, 1)).not.toHaveProperty('output');
			expect(shown(description, { resource, operation }, 2)).toMatchObject({ simplify: true });
			expect(shown(description, { resource, operation }, 2)).not.toHaveProperty('output');
		}
	});

	it("Selected Fields lists the fields of the operation's record, but the ID, which is always output", () => {
		const fieldsOf = (resource: string, operation: string) => {
			const property = tool.description.properties.find(
				(candidate) =>
					candidate.name === 'fields' &&
					candidate.displayOptions?.show?.resource?.includes(resource) &&
					candidate.displayOptions?.show?.operation?.includes(operation),
			) as INodeProperties;
			return (property.options ?? []).map((option) =>
				'value' in option ? option.value : undefined,
			);
		};
		const client = fieldsOf('client', 'get');
		const listItem = fieldsOf('client', 'getAll');

		expect(client).toEqual(
			expect.arrayContaining([
				'name',
				'state',
				'partner',
				'manager',
				'lastAmlDetermination',
				'services',
			]),
		);
		expect(listItem).toEqual(
			expect.arrayContaining(['name', 'state', 'lastAmlDetermination', 'nextReviewDate']),
		);
		expect(listItem).not.toEqual(expect.arrayContaining(['partner']));
		expect(fieldsOf('firm', 'get')).toEqual(
			expect.arrayContaining(['staff', 'services', 'mlroStaffId']),
		);
		for (const fields of [
			client,
			listItem,
			fieldsOf('individual', 'get'),
			fieldsOf('organisation', 'getAll'),
			fieldsOf('firm', 'get'),
		]) {
			expect(fields).not.toContain('id');
		}
	});

	it('Simplified: the ten most used fields of the client whose ID the model gave', async () => {
		const [complete] = await completeAndSparse();

		const result = await runTool(
			{ resource: 'client', operation: 'get', clientId: "={{ $fromAI('clientId') }}" },
			{ clientId: complete.id },
		);

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([simplifiedClient(complete)]);
		expect(
			sandbox()
				.requests()
				.map((request) => request.path),
		).toEqual([`/clients/${complete.id}`]);
	});

	it('Raw: the client as the service sent it', async () => {
		const [complete] = await completeAndSparse();

		const result = await runTool({
			resource: 'client',
			operation: 'get',
			clientId: complete.id,
			output: 'raw',
		});

		expect(result.json).toEqual([complete]);
	});

	it('Selected Fields: the chosen fields and the ID, also with none chosen', async () => {
		const [complete] = await completeAndSparse();
		const get = { resource: 'client', operation: 'get', clientId: complete.id, output: 'fields' };

		const chosen = await runTool({
			...get,
			fields: ['partner', 'nextReviewDate', 'lastAmlDetermination'],
		});
		const none = await runTool({ ...get, fields: [] });

		expect([chosen.error, none.error]).toEqual([undefined, undefined]);
		expect(chosen.json).toEqual([
			{
				id: complete.id,
				lastAmlDetermination: complete.lastAmlDetermination,
				nextReviewDate: complete.nextReviewDate,
				partner: complete.partner,
			},
		]);
		expect(none.json).toEqual([{ id: complete.id }]);
	});

	it('Selected Fields by expression, as a model may choose them: names separated by commas', async () => {
		const listItems = await stored<ServiceClient[]>('/clients?limit=5');

		const result = await runTool(
			{
				resource: 'client',
				operation: 'getAll',
				limit: 5,
				output: 'fields',
				fields: "={{ $fromAI('fields') }}",
			},
			{ fields: 'name, state' },
		);

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(
			listItems.map((client) => ({ id: client.id, name: client.name, state: client.state })),
		);
	});
});
