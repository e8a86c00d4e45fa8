import type { Firm } from 'compliance-records-sandbox';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../../helpers';
import { useSandbox } from '../../../helpers/sandbox';
import { firmOf, serviceGet } from '../../../helpers/serviceApi';

/**
 * Partner, manager, business unit and services given by name (as an AI agent's `$fromAI()` or a
 * spreadsheet column gives them): looked up in one firm record per execution.
 */
const { sandbox, credentials } = useSandbox({ clients: 3 });

async function firm(): Promise<Firm> {
	const data = await firmOf(sandbox());
	sandbox().clearRequests();
	return data;
}

const staffId = (record: Firm, name: string) =>
	record.staff.find((member) => `${member.firstName} ${member.lastName}` === name)!.id;
const unitId = (record: Firm, name: string) =>
	record.businessUnits.find((unit) => unit.name === name)!.id;
const serviceId = (record: Firm, name: string) =>
	record.services.find((service) => service.name === name)!.id;

const createIndividual = (additionalFields: INodeParameters, input?: IDataObject[]) =>
	runNode({
		credentials: credentials(),
		parameters: {
			resource: 'client',
			operation: 'create',
			status: 'PROSPECT',
			entityType: 'individual',
			firstName: '={{ $json.first ?? "Jane" }}',
			lastName: 'Doe',
			additionalFields,
		},
		input,
	});

const requestLines = () =>
	sandbox()
		.requests()
		.map((request) => `${request.method} ${request.path}`);

describe('names of the firm record where IDs go', () => {
	it('sends the IDs of a partner, manager, business unit and services given by name in expressions', async () => {
		const record = await firm();

		const run = await createIndividual(
			{
				partnerId: '={{ $json.partner }}',
				managerId: '={{ $json.manager }}',
				businessUnitId: '={{ $json.unit }}',
				serviceIds: '={{ $json.services }}',
			},
			[
				{
					partner: 'Priya Shah',
					manager: 'Tom Gallagher',
					unit: 'Private Client',
					services: ['Payroll', 'VAT returns'],
				},
			],
		);

		expect(run.error).toBeUndefined();
		expect(requestLines()).toEqual(['GET /firm', 'POST /clients']);
		expect(sandbox().requests()[1].body).toMatchObject({
			partnerId: staffId(record, 'Priya Shah'),
			managerId: staffId(record, 'Tom Gallagher'),
			businessUnitId: unitId(record, 'Private Client'),
			serviceIds: [serviceId(record, 'Payroll'), serviceId(record, 'VAT returns')],
		});
		expect(run.json[0]).toMatchObject({
			partner: { name: 'Priya Shah' },
			manager: { name: 'Tom Gallagher' },
			businessUnit: { name: 'Private Client' },
		});
	});

	it('reads the firm record once per execution, not per item', async () => {
		const record = await firm();
		const people = ['Ada', 'Grace', 'Alan', 'Barbara'].map((first, index) => ({
			first,
			partner: ['Eleanor Harwood', 'James Finch'][index % 2],
		}));

		const run = await createIndividual({ partnerId: '={{ $json.partner }}' }, people);

		expect(run.error).toBeUndefined();
		expect(requestLines()).toEqual(['GET /firm', ...people.map(() => 'POST /clients')]);
		expect(
			sandbox()
				.requests()
				.slice(1)
				.map((request) => (request.body as IDataObject).partnerId),
		).toEqual(people.map((person) => staffId(record, person.partner)));
	});

	it.each([
		['in any case and spacing', '  priya   SHAH ', 'Priya Shah'],
		['by a word of the name, when only one name has it', 'Finch', 'James Finch'],
		['by an ID', 'ID', 'Eleanor Harwood'],
	])('finds a partner %s', async (_case, given, expected) => {
		const record = await firm();
		const value = given === 'ID' ? staffId(record, expected) : given;

		const run = await createIndividual({ partnerId: `={{ ${JSON.stringify(value)} }}` });

		expect(run.error).toBeUndefined();
		expect((sandbox().requests()[1].body as IDataObject).partnerId).toBe(staffId(record, expected));
	});

	it('refuses an unknown partner before the client request, listing the partners', async () => {
		const run = await createIndividual({ partnerId: '={{ "Jon Smith" }}' });

		expect(run.error?.message).toBe(
			"'Partner Name or ID' \"Jon Smith\" is not one of the firm's partners [item 0]",
		);
		expect(run.error?.description).toBe(
			"Give a partner's name or ID. The firm's partners: Eleanor Harwood, James Finch, Margaret Osei, Priya Shah.",
		);
		expect(requestLines()).toEqual(['GET /firm']);
	});

	it('refuses a staff member who is not a manager, by name or by ID', async () => {
		const record = await firm();

		const byName = await createIndividual({ managerId: '={{ "Hannah Lewis" }}' });
		const byId = await createIndividual({
			managerId: `={{ "${staffId(record, 'Hannah Lewis')}" }}`,
		});

		expect(byName.error?.message).toBe(
			"'Manager Name or ID' \"Hannah Lewis\" is not one of the firm's managers [item 0]",
		);
		expect(byId.error?.message).toBe(
			`'Manager Name or ID' "${staffId(record, 'Hannah Lewis')}" is not one of the firm's managers [item 0]`,
		);
		expect(byName.error?.description).toBe(
			"Give a manager's name or ID. The firm's managers: Aisha Rahman, Daniel Price, Priya Shah, Tom Gallagher.",
		);
		expect(requestLines()).toEqual(['GET /firm', 'GET /firm']);
	});

	it('refuses a name that several services share, listing them', async () => {
		const run = await createIndividual({ serviceIds: '={{ "Payroll, tax return" }}' });

		expect(run.error?.message).toBe(
			"'Service Names or IDs' \"tax return\" matches several of the firm's services: Corporation tax return, Self Assessment tax return [item 0]",
		);
		expect(run.error?.description).toBe('Give the full name of one of them, or its ID.');
		expect(requestLines()).toEqual(['GET /firm']);
	});

	it('sends a value chosen from the dropdown as it is, without reading the firm record', async () => {
		const record = await firm();

		const run = await createIndividual({
			partnerId: staffId(record, 'James Finch'),
			serviceIds: [serviceId(record, 'Payroll')],
		});

		expect(run.error).toBeUndefined();
		expect(requestLines()).toEqual(['POST /clients']);
		expect(sandbox().requests()[0].body).toMatchObject({
			partnerId: staffId(record, 'James Finch'),
			serviceIds: [serviceId(record, 'Payroll')],
		});
	});

	it('takes names in an update too: a manager and a business unit', async () => {
		const record = await firm();
		const [client] = (await serviceGet<{ data: Array<{ id: string }> }>(sandbox(), '/clients'))
			.data;
		sandbox().clearRequests();

		const run = await runNode({
			credentials: credentials(),
			parameters: {
				resource: 'client',
				operation: 'update',
				clientId: client.id,
				updateFields: { managerId: '={{ "Daniel Price" }}', businessUnitId: '={{ "manchester" }}' },
			},
		});

		expect(run.error).toBeUndefined();
		expect(requestLines()).toEqual(['GET /firm', `PATCH /clients/${client.id}`]);
		expect(sandbox().requests()[1].body).toEqual({
			managerId: staffId(record, 'Daniel Price'),
			businessUnitId: unitId(record, 'Manchester'),
		});
	});
});
