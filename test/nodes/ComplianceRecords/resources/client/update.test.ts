import type { Firm } from 'compliance-records-sandbox';
import type { IDataObject, INodeParameterResourceLocator, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { firmOf, serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 4 });

const update = (clientId: string, updateFields: INodeParameters) =>
	runNode({
		credentials: credentials(),
		parameters: { resource: 'client', operation: 'update', clientId, updateFields },
	});

async function setUp(): Promise<{ ids: string[]; firm: Firm }> {
	const list = await serviceGet<{ data: Array<{ id: string }> }>(sandbox(), '/clients');
	const firm = await firmOf(sandbox());
	sandbox().clearRequests();
	return { ids: list.data.map((client) => client.id), firm };
}

const stored = async (id: string) =>
	(await serviceGet<{ data: IDataObject }>(sandbox(), `/clients/${id}`)).data;

describe('Client > Update', () => {
	it('sends only the fields given and outputs the updated client', async () => {
		const { ids } = await setUp();

		const run = await update(ids[0], { referenceNumber: 'R-100', status: 'EXISTING' });

		expect(run.error).toBeUndefined();
		const requests = sandbox().requests();
		expect(requests).toHaveLength(1);
		expectReceived(requests[0], {
			method: 'PATCH',
			path: `/clients/${ids[0]}`,
			bearer: sandbox().apiKey,
			body: { referenceNumber: 'R-100', status: 'EXISTING' },
		});
		expect(run.json).toEqual([await stored(ids[0])]);
		expect(run.json[0]).toMatchObject({ referenceNumber: 'R-100', state: 'EXISTING' });
	});

	it('sets every updatable field with the API names', async () => {
		const { ids, firm } = await setUp();
		const fields = {
			status: 'PROSPECT',
			partnerId: firm.staff.find((member) => member.isPartner)!.id,
			managerId: firm.staff.find((member) => member.isManager)!.id,
			businessUnitId: firm.businessUnits[0].id,
			serviceIds: [firm.services[2].id],
			referenceNumber: 'R-200',
			nextReviewDate: '2027-06-30',
		};

		const run = await update(ids[1], fields);

		expect(run.error).toBeUndefined();
		expectReceived(sandbox().requests()[0], {
			method: 'PATCH',
			path: `/clients/${ids[1]}`,
			bearer: sandbox().apiKey,
			body: fields,
		});
		expect(run.json[0]).toMatchObject({
			state: 'PROSPECT',
			partner: { id: fields.partnerId },
			manager: { id: fields.managerId },
			businessUnit: { id: fields.businessUnitId },
			services: fields.serviceIds,
			referenceNumber: 'R-200',
			nextReviewDate: '2027-06-30',
		});
	});

	it('takes service IDs from an expression as a comma-separated list, checked against the firm record', async () => {
		const { ids, firm } = await setUp();

		const run = await update(ids[2], {
			serviceIds: `={{ "${firm.services[0].id}, ${firm.services[1].id}" }}`,
		});

		expect(run.error).toBeUndefined();
		const requests = sandbox().requests();
		expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /firm',
			`PATCH /clients/${ids[2]}`,
		]);
		expect(requests[1].body).toEqual({ serviceIds: [firm.services[0].id, firm.services[1].id] });
	});

	it('sets the fields chosen in Fields to Clear to null', async () => {
		const { ids, firm } = await setUp();
		const partnerId = firm.staff.find((member) => member.isPartner)!.id;
		await update(ids[3], { partnerId, referenceNumber: 'R-300', nextReviewDate: '2027-01-01' });
		sandbox().clearRequests();

		const run = await update(ids[3], {
			clearFields: ['partnerId', 'referenceNumber', 'nextReviewDate'],
		});

		expect(run.error).toBeUndefined();
		expectReceived(sandbox().requests()[0], {
			method: 'PATCH',
			path: `/clients/${ids[3]}`,
			bearer: sandbox().apiKey,
			body: { partnerId: null, referenceNumber: null, nextReviewDate: null },
		});
		expect(run.json[0]).not.toHaveProperty('partner');
		expect(run.json[0]).not.toHaveProperty('referenceNumber');
		expect(run.json[0]).not.toHaveProperty('nextReviewDate');
	});

	it('leaves out update fields that are blank, and clears only with Fields to Clear', async () => {
		const { ids } = await setUp();

		const run = await update(ids[1], {
			nextReviewDate: '={{ "" }}',
			referenceNumber: ' ',
			clearFields: ['managerId'],
		});

		expect(run.error).toBeUndefined();
		expect(sandbox().requests()[0].body).toEqual({ managerId: null });
	});

	it.each([
		[
			'a field both set and cleared',
			{ referenceNumber: 'R-1', clearFields: ['referenceNumber'] },
			"'Reference Number' is both set and cleared",
		],
		['no field at all', {}, 'Nothing to update'],
		['only blank fields', { nextReviewDate: '={{ "" }}' }, 'Nothing to update'],
		[
			'a next review date that is not a date',
			{ nextReviewDate: '31/01/2027' },
			"'Next Review Date' is not a date",
		],
		[
			'a next review date that does not exist',
			{ nextReviewDate: '2027-02-30' },
			"'Next Review Date' is not a real date",
		],
	])('refuses %s before sending anything', async (_case, updateFields, message) => {
		const { ids } = await setUp();

		const run = await update(ids[0], updateFields);

		expect(run.error?.message).toBe(`${message} [item 0]`);
		expect(sandbox().requests()).toEqual([]);
	});
});

describe('Client > Update, version 2: the client picked', () => {
	const updatePicked = (clientId: INodeParameterResourceLocator, input?: IDataObject[]) =>
		runNode({
			credentials: credentials(),
			typeVersion: 2,
			parameters: {
				resource: 'client',
				operation: 'update',
				clientId,
				updateFields: { referenceNumber: 'R-0-v2' },
			},
			input,
		});

	it.each([
		[
			'From List',
			(id: string) => ({ __rl: true, mode: 'list', value: id, cachedResultName: 'A client' }),
		],
		[
			'By URL (its API URL)',
			(id: string) => ({ __rl: true, mode: 'url', value: `${sandbox().baseUrl}/clients/${id}` }),
		],
		['By ID', (id: string) => ({ __rl: true, mode: 'id', value: id })],
	] satisfies Array<[string, (id: string) => INodeParameterResourceLocator]>)(
		'updates the client picked %s',
		async (_mode, pick) => {
			const { ids } = await setUp();

			const run = await updatePicked(pick(ids[2]));

			expect(run.error).toBeUndefined();
			expectReceived(sandbox().requests()[0], {
				method: 'PATCH',
				path: `/clients/${ids[2]}`,
				bearer: sandbox().apiKey,
				body: { referenceNumber: 'R-0-v2' },
			});
			expect(run.json).toEqual([
				expect.objectContaining({ id: ids[2], referenceNumber: 'R-0-v2' }),
			]);
		},
	);

	it("changes nothing for an individual's URL given by expression: 'Client' is named", async () => {
		const { ids } = await setUp();
		const url = `${sandbox().baseUrl}/individuals/${ids[0]}`;

		const run = await updatePicked({ __rl: true, mode: 'url', value: '={{ $json.url }}' }, [
			{ url },
		]);

		expect(run.error?.message).toBe(`'Client' "${url}" is not the URL of a client [item 0]`);
		expect(sandbox().requests()).toEqual([]);
	});
});
