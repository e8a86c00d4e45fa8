import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ComplianceRecords } from '../../../nodes/ComplianceRecords/ComplianceRecords.node';
import { runNode } from '../../helpers';
import { expectReceived, useSandbox } from '../../helpers/sandbox';
import { listAll, serviceGet } from '../../helpers/serviceApi';

/*
 * Workflows saved at version 1, as 0.1.0 released it: ID text boxes, dates as text, and the
 * service's records as output. Every operation's parameters, requests and output stay so.
 */

const { sandbox, credentials } = useSandbox({ clients: 8 });

const { description } = new ComplianceRecords();

/** The parameters n8n keeps for a node saved at version 1 (the editor shows them), defaults filled in. */
const keptAtVersion1 = (values: INodeParameters) =>
	NodeHelpers.getNodeParameters(
		description.properties,
		values,
		true,
		false,
		{ typeVersion: 1 },
		description,
	) ?? {};

const run = (parameters: INodeParameters) =>
	runNode({ credentials: credentials(), parameters, typeVersion: 1 });

const stored = async (path: string) =>
	(await serviceGet<{ data: IDataObject }>(sandbox(), path)).data;

async function firstRecords() {
	const [client] = await listAll(sandbox());
	const [individual] = await listAll(sandbox(), '/individuals');
	sandbox().clearRequests();
	return { clientId: String(client.id), individualId: String(individual.id) };
}

describe('Compliance Records node, version 1 (as released in 0.1.0)', () => {
	it.each([
		[
			'client',
			'create',
			{
				status: 'PROSPECT',
				entityType: 'individual',
				firstName: '',
				lastName: '',
				individualFields: {},
				additionalFields: {},
			},
		],
		['client', 'get', { clientId: '' }],
		['client', 'getAll', { returnAll: false, limit: 50, filters: {} }],
		['client', 'update', { clientId: '', updateFields: {} }],
		['individual', 'get', { individualId: '' }],
		['individual', 'getAll', { returnAll: false, limit: 50 }],
		['individual', 'update', { individualId: '', updateFields: {} }],
		['organisation', 'getAll', { returnAll: false, limit: 50 }],
		['firm', 'get', {}],
	])(
		'%s > %s keeps its parameters: IDs as text, no Simplify, no Output',
		(resource, operation, fields) => {
			expect(keptAtVersion1({ resource, operation })).toEqual({
				authentication: 'apiKey',
				resource,
				operation,
				...fields,
			});
		},
	);

	it('Client > Create: one POST, the new client as the service holds it', async () => {
		const result = await run({
			resource: 'client',
			operation: 'create',
			status: 'EXISTING',
			entityType: 'individual',
			firstName: 'Ada',
			lastName: 'Lovelace',
			individualFields: { birth: '1815-12-10' },
			additionalFields: { nextReviewDate: '2027-03-31T09:00:00Z', referenceNumber: 'V1-CREATE' },
		});

		expect(result.error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'POST',
			path: '/clients',
			bearer: sandbox().apiKey,
			body: {
				status: 'EXISTING',
				entity: {
					object: 'individual',
					firstName: 'Ada',
					lastName: 'Lovelace',
					birth: { day: 10, month: 12, year: 1815 },
				},
				nextReviewDate: '2027-03-31',
				referenceNumber: 'V1-CREATE',
			},
		});
		expect(result.json).toEqual([await stored(`/clients/${String(result.json[0].id)}`)]);
	});

	it('Client > Create or Update of a new reference number: one POST, the new client as the service holds it', async () => {
		const result = await run({
			resource: 'client',
			operation: 'upsert',
			referenceNumber: 'V1-UPSERT',
			status: 'PROSPECT',
			entityType: 'individual',
			firstName: 'Grace',
			lastName: 'Hopper',
		});

		expect(result.error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'POST',
			path: '/clients',
			bearer: sandbox().apiKey,
			body: {
				referenceNumber: 'V1-UPSERT',
				status: 'PROSPECT',
				entity: { object: 'individual', firstName: 'Grace', lastName: 'Hopper' },
			},
		});
		expect(result.json).toEqual([await stored(`/clients/${String(result.json[0].id)}`)]);
	});

	it('Client > Get: the ID as text, the client as the service sends it', async () => {
		const { clientId } = await firstRecords();

		const result = await run({ resource: 'client', operation: 'get', clientId });

		expect(result.error).toBeUndefined();
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: `/clients/${clientId}`,
			bearer: sandbox().apiKey,
		});
		expect(result.json).toEqual([await stored(`/clients/${clientId}`)]);
	});

	it('Client > Get Many: the list items as the service sends them', async () => {
		const clients = await listAll(sandbox());
		sandbox().clearRequests();

		const result = await run({
			resource: 'client',
			operation: 'getAll',
			limit: 3,
			filters: { sinceModifiedAt: '2020-01-01T00:00:00Z' },
		});

		expect(result.error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/clients',
			query: { limit: '3', sinceModifiedAt: '2020-01-01T00:00:00.000Z' },
			bearer: sandbox().apiKey,
		});
		expect(result.json).toEqual(clients.slice(0, 3));
	});

	it('Client > Update: only the fields given, the client as the service then holds it', async () => {
		const { clientId } = await firstRecords();

		const result = await run({
			resource: 'client',
			operation: 'update',
			clientId,
			updateFields: {
				status: 'EXISTING',
				nextReviewDate: '2028-01-31',
				clearFields: ['referenceNumber'],
			},
		});

		expect(result.error).toBeUndefined();
		expectReceived(sandbox().requests()[0], {
			method: 'PATCH',
			path: `/clients/${clientId}`,
			bearer: sandbox().apiKey,
			body: { status: 'EXISTING', nextReviewDate: '2028-01-31', referenceNumber: null },
		});
		expect(result.json).toEqual([await stored(`/clients/${clientId}`)]);
	});

	it('Individual > Get, Get Many and Update: the records as the service sends them', async () => {
		const { individualId } = await firstRecords();
		const individuals = await listAll(sandbox(), '/individuals');
		sandbox().clearRequests();

		const got = await run({ resource: 'individual', operation: 'get', individualId });
		const listed = await run({ resource: 'individual', operation: 'getAll', limit: 2 });
		const updated = await run({
			resource: 'individual',
			operation: 'update',
			individualId,
			updateFields: { email: 'v1@example.com' },
		});

		expect([got.error, listed.error, updated.error]).toEqual([undefined, undefined, undefined]);
		const [get, list, patch] = sandbox().requests();
		expectReceived(get, {
			method: 'GET',
			path: `/individuals/${individualId}`,
			bearer: sandbox().apiKey,
		});
		expectReceived(list, {
			method: 'GET',
			path: '/individuals',
			query: { limit: '2' },
			bearer: sandbox().apiKey,
		});
		expectReceived(patch, {
			method: 'PATCH',
			path: `/individuals/${individualId}`,
			bearer: sandbox().apiKey,
			body: { email: 'v1@example.com' },
		});
		expect(got.json).toEqual([individuals[0]]);
		expect(listed.json).toEqual(individuals.slice(0, 2));
		expect(updated.json).toEqual([await stored(`/individuals/${individualId}`)]);
	});

	it('Organisation > Get Many and Firm > Get: the records as the service sends them', async () => {
		const organisations = await listAll(sandbox(), '/organisations');
		const firm = await stored('/firm');
		sandbox().clearRequests();

		const listed = await run({ resource: 'organisation', operation: 'getAll', returnAll: true });
		const got = await run({ resource: 'firm', operation: 'get' });

		expect([listed.error, got.error]).toEqual([undefined, undefined]);
		const [list, get] = sandbox().requests();
		expectReceived(list, {
			method: 'GET',
			path: '/organisations',
			query: { limit: '200' },
			bearer: sandbox().apiKey,
		});
		expectReceived(get, { method: 'GET', path: '/firm', bearer: sandbox().apiKey });
		expect(listed.json).toEqual(organisations);
		expect(got.json).toEqual([firm]);
	});
});
