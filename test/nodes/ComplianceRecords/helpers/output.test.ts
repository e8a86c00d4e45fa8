/* eslint-disable no-console -- development tooling: runs in Node, not in n8n; prints what it measures */
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import { ComplianceRecords } from '../../../../nodes/ComplianceRecords/ComplianceRecords.node';
import { asAiTool, runNode, TestNodeTypes } from '../../../helpers';
import { useSandbox } from '../../../helpers/sandbox';
import { createTriggerPoller } from '../../../helpers/trigger';
import { firmOf, serviceGet, touchClient, type ServiceClient } from '../../../helpers/serviceApi';
import { SIMPLIFIED_KEYS, simplifiedClient } from '../../../helpers/simplified';
import { parametersShown } from '../../../helpers/parametersShown';

const { sandbox, credentials } = useSandbox({ clients: 60, controls: true });

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

	it('Client > Get: the fields a compliance team uses most, in that order, partner and manager by name; one request', async () => {
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
		expect(Object.keys(results[0].json[0])).toEqual(SIMPLIFIED_KEYS.client);
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

	it("Client > Get Many: the same fields but partner and manager, which the service's list items do not carry", async () => {
		const listItems = await stored<ServiceClient[]>('/clients?limit=50');
		sandbox().clearRequests();

		const result = await run({ resource: 'client', operation: 'getAll' });

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual(listItems.map((client) => simplifiedClient(client, true)));
		expect(Object.keys(result.json[0])).toEqual(SIMPLIFIED_KEYS.clientListItem);
		expect(result.json[0]).not.toHaveProperty('partner');
		expect(sandbox().requests()).toHaveLength(1);
	});

	it('Client > Create and Update output the simplified client', async () => {
		const firm = await firmOf(sandbox());
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
		expect(created.json).toEqual([
			{ ...simplifiedClient(client), partner: null, lastModifiedAt: expect.any(String) },
		]);
		expect(created.json[0]).toMatchObject({
			name: 'Jane Doe',
			status: 'PROSPECT',
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
			individuals.map(() => SIMPLIFIED_KEYS.individual),
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
		const firm = await firmOf(sandbox());
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

	it('makes what an AI agent reads several times smaller (docs/ai-agents.md quotes these figures)', async () => {
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

/** The keys of every item a run output, once each (a run outputs items of one shape). */
async function keysOf(running: Promise<{ json: IDataObject[]; error?: Error }>) {
	const { json, error } = await running;
	expect(error).toBeUndefined();
	expect(json.length).toBeGreaterThan(0);
	return [...new Set(json.map((record) => JSON.stringify(Object.keys(record))))].map(
		(keys) => JSON.parse(keys) as string[],
	);
}

/** What a version 1.1 trigger emits for an event after its activation, and its Fetch Test Event. */
async function triggerKeys(parameters: IDataObject, happen: (id: string) => Promise<unknown>) {
	const poller = createTriggerPoller({ parameters, credentials: credentials(), typeVersion: 1.1 });
	expect(await poller.poll()).toEqual([]);
	const [listed] = await stored<ServiceClient[]>('/clients?limit=1');
	await happen(listed.id);
	const emitted = await keysOf(poller.poll().then((json) => ({ json })));
	return [...emitted, ...(await keysOf(poller.fetchTestEvent()))];
}
const touch = async (id: string) => await touchClient(sandbox(), id);
const completeAml = async (id: string) => await sandbox().completeAmlDetermination(id, 'LOW');
const dueTomorrow = async (id: string) =>
	await touchClient(sandbox(), id, {
		nextReviewDate: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
	});

describe('one Simplified shape per record kind, whatever operation outputs it', () => {
	const newClient = {
		status: 'PROSPECT',
		entityType: 'individual',
		firstName: 'Ada',
		lastName: 'Byron',
	};

	it("a client: Get, Create, Update, Create or Update (both ways) and the trigger with 'Fetch Full Client'", async () => {
		const [client] = await fullClients();

		const shapes = [
			await keysOf(run({ resource: 'client', operation: 'get', clientId: client.id })),
			await keysOf(run({ resource: 'client', operation: 'create', ...newClient })),
			await keysOf(
				run({
					resource: 'client',
					operation: 'update',
					clientId: client.id,
					updateFields: { referenceNumber: 'SHAPE-1' },
				}),
			),
			await keysOf(
				run({ resource: 'client', operation: 'upsert', referenceNumber: 'SHAPE-1', ...newClient }),
			),
			await keysOf(
				run({ resource: 'client', operation: 'upsert', referenceNumber: 'SHAPE-2', ...newClient }),
			),
			await triggerKeys({ event: 'clientModified', options: { fetchFullClient: true } }, touch),
		].flat();

		expect(shapes).toEqual(shapes.map(() => SIMPLIFIED_KEYS.client));
	});

	it("a client list item: Get Many and the trigger's three events with their Fetch Test Event, the full client's keys but partner and manager", async () => {
		const [client] = await fullClients();
		const [full] = await keysOf(run({ resource: 'client', operation: 'get', clientId: client.id }));

		const shapes = [
			await keysOf(run({ resource: 'client', operation: 'getAll', returnAll: true })),
			await triggerKeys({ event: 'clientModified' }, touch),
			await triggerKeys({ event: 'amlDeterminationCompleted' }, completeAml),
			await triggerKeys({ event: 'reviewDue', days: 30 }, dueTomorrow),
		].flat();

		expect(shapes).toEqual(shapes.map(() => SIMPLIFIED_KEYS.clientListItem));
		expect(SIMPLIFIED_KEYS.clientListItem).toEqual(
			full.filter((key) => key !== 'partner' && key !== 'manager'),
		);
	});

	it('an individual: Get, Get Many and Update', async () => {
		const [individual] = await stored<Array<{ id: string }>>('/individuals?limit=1');

		const shapes = [
			await keysOf(run({ resource: 'individual', operation: 'get', individualId: individual.id })),
			await keysOf(run({ resource: 'individual', operation: 'getAll', returnAll: true })),
			await keysOf(
				run({
					resource: 'individual',
					operation: 'update',
					individualId: individual.id,
					updateFields: { email: 'shape@example.com' },
				}),
			),
		].flat();

		expect(shapes).toEqual(shapes.map(() => SIMPLIFIED_KEYS.individual));
	});

	it('an organisation: Get Many, the one operation that outputs organisations', async () => {
		const shapes = await keysOf(
			run({ resource: 'organisation', operation: 'getAll', returnAll: true }),
		);

		expect(shapes).toEqual([SIMPLIFIED_KEYS.organisation]);
	});

	it('the firm: Get, the one operation that outputs it', async () => {
		const shapes = await keysOf(run({ resource: 'firm', operation: 'get' }));

		expect(shapes).toEqual([SIMPLIFIED_KEYS.firm]);
	});

	it("every shape has at most 10 fields (n8n's UX guidelines)", () => {
		for (const keys of Object.values(SIMPLIFIED_KEYS)) expect(keys.length).toBeLessThanOrEqual(10);
	});
});

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
			const asTool = parametersShown(tool.description, { resource, operation }, 2);
			expect(asTool).toMatchObject({ output: 'simple' });
			expect(asTool).not.toHaveProperty('simplify');
			expect(asTool).not.toHaveProperty('fields');
			expect(
				parametersShown(tool.description, { resource, operation, output: 'fields' }, 2),
			).toMatchObject({
				output: 'fields',
				fields: [],
			});
			expect(parametersShown(tool.description, { resource, operation }, 1)).not.toHaveProperty(
				'output',
			);
			expect(parametersShown(description, { resource, operation }, 2)).toMatchObject({
				simplify: true,
			});
			expect(parametersShown(description, { resource, operation }, 2)).not.toHaveProperty('output');
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
