import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { firmOf, serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox();

const create = (parameters: IDataObject, input?: IDataObject[]) =>
	runNode({
		credentials: credentials(),
		parameters: { resource: 'client', operation: 'create', ...parameters },
		input,
	});

/** The one request of a Create: POST /clients with this body, and the node's headers. */
const expectPosted = (body: IDataObject) =>
	expectReceived(sandbox().requests()[0], {
		method: 'POST',
		path: '/clients',
		bearer: sandbox().apiKey,
		body,
	});

/** n8n output one item: the created client exactly as the service now holds it. */
async function expectOutputIsStored(output: IDataObject[]) {
	expect(output).toHaveLength(1);
	const stored = await serviceGet<{ data: IDataObject }>(
		sandbox(),
		`/clients/${String(output[0].id)}`,
	);
	expect(output[0]).toEqual(stored.data);
}

const address = {
	line1: '4 Mill Lane',
	line2: 'Flat 2',
	city: 'Bath',
	postcode: 'BA1 1AA',
	county: 'Somerset',
	country: 'United Kingdom',
};

describe('Client > Create', () => {
	it('creates an individual client from the required fields only', async () => {
		const run = await create({
			status: 'PROSPECT',
			entityType: 'individual',
			firstName: 'Ada',
			lastName: 'Lovelace',
		});

		expect(run.error).toBeUndefined();
		const requests = sandbox().requests();
		expect(requests).toHaveLength(1);
		expectPosted({
			status: 'PROSPECT',
			entity: { object: 'individual', firstName: 'Ada', lastName: 'Lovelace' },
		});
		await expectOutputIsStored(run.json);
		expect(run.json[0]).toMatchObject({
			object: 'client',
			name: 'Ada Lovelace',
			state: 'PROSPECT',
			category: 'INDIVIDUAL',
			entity: { object: 'individual', firstName: 'Ada', lastName: 'Lovelace' },
			services: [],
		});
	});

	it('sends every optional individual field and every additional field with the API names', async () => {
		const firm = await firmOf(sandbox());
		sandbox().clearRequests();
		const partnerId = firm.staff.find((member) => member.isPartner)!.id;
		const managerId = firm.staff.find((member) => member.isManager)!.id;
		const businessUnitId = firm.businessUnits[0].id;
		const serviceIds = [firm.services[0].id, firm.services[1].id];

		const run = await create({
			status: 'EXISTING',
			entityType: 'individual',
			firstName: 'Grace',
			lastName: 'Hopper',
			individualFields: {
				middleName: 'Brewster',
				email: 'grace@example.com',
				residentialAddress: address,
				birth: '1906-12-09',
			},
			additionalFields: {
				partnerId,
				managerId,
				businessUnitId,
				serviceIds,
				referenceNumber: 'REF-HOPPER-1',
				nextReviewDate: '2027-01-31',
			},
		});

		expect(run.error).toBeUndefined();
		expectPosted({
			status: 'EXISTING',
			entity: {
				object: 'individual',
				firstName: 'Grace',
				lastName: 'Hopper',
				middleName: 'Brewster',
				email: 'grace@example.com',
				residentialAddress: address,
				birth: { day: 9, month: 12, year: 1906 },
			},
			partnerId,
			managerId,
			businessUnitId,
			serviceIds,
			referenceNumber: 'REF-HOPPER-1',
			nextReviewDate: '2027-01-31',
		});
		await expectOutputIsStored(run.json);
		expect(run.json[0]).toMatchObject({
			state: 'EXISTING',
			referenceNumber: 'REF-HOPPER-1',
			nextReviewDate: '2027-01-31',
			partner: { id: partnerId },
			manager: { id: managerId },
			businessUnit: { id: businessUnitId },
			services: serviceIds,
			entity: {
				middleName: 'Brewster',
				email: 'grace@example.com',
				residentialAddress: address,
				birth: { day: 9, month: 12, year: 1906 },
			},
		});
	});

	it('creates a sole trader, the person under "individual"', async () => {
		const run = await create({
			status: 'PROSPECT',
			entityType: 'sole_trader',
			firstName: 'Tom',
			lastName: 'Baker',
			soleTraderFields: {
				tradingName: 'Baker Joinery',
				middleName: 'Stewart',
				email: 'tom@baker.example',
				residentialAddress: { line1: '1 High St', city: 'Leeds' },
				birth: '1970-01-31',
			},
		});

		expect(run.error).toBeUndefined();
		expectPosted({
			status: 'PROSPECT',
			entity: {
				object: 'sole_trader',
				tradingName: 'Baker Joinery',
				individual: {
					firstName: 'Tom',
					lastName: 'Baker',
					middleName: 'Stewart',
					email: 'tom@baker.example',
					residentialAddress: { line1: '1 High St', city: 'Leeds' },
					birth: { day: 31, month: 1, year: 1970 },
				},
			},
		});
		await expectOutputIsStored(run.json);
		expect(run.json[0]).toMatchObject({
			category: 'SOLE_TRADER',
			entity: {
				object: 'sole_trader',
				tradingName: 'Baker Joinery',
				individual: { firstName: 'Tom', lastName: 'Baker' },
			},
		});
	});

	it('imports a UK company from the registry by its number', async () => {
		const run = await create({
			status: 'EXISTING',
			entityType: 'import_uk_company',
			companyNumber: '12345678',
			companyFields: { tradingAddress: { line1: '9 Trade Row', city: 'London' } },
		});

		expect(run.error).toBeUndefined();
		expectPosted({
			status: 'EXISTING',
			entity: {
				object: 'import_uk_company',
				companyNumber: '12345678',
				tradingAddress: { line1: '9 Trade Row', city: 'London' },
			},
		});
		await expectOutputIsStored(run.json);
		expect(run.json[0]).toMatchObject({
			name: 'Demo Widgets Ltd',
			category: 'ORGANISATION',
			entity: {
				object: 'organisation',
				companyNumber: '12345678',
				tradingAddress: { line1: '9 Trade Row', city: 'London' },
			},
		});
	});

	it('creates an organisation entered by hand with all its fields', async () => {
		const run = await create({
			status: 'PROSPECT',
			entityType: 'organisation',
			organisationName: 'Friends of the Canal',
			organisationType: 'NON_PROFIT',
			organisationFields: {
				subType: 'Charity',
				identifyingNumber: 'CH-1138',
				registeredAddress: address,
				tradingAddress: { line1: 'Lock Keeper Cottage', city: 'Bath' },
			},
		});

		expect(run.error).toBeUndefined();
		expectPosted({
			status: 'PROSPECT',
			entity: {
				object: 'organisation',
				name: 'Friends of the Canal',
				type: 'NON_PROFIT',
				subType: 'Charity',
				identifyingNumber: 'CH-1138',
				registeredAddress: address,
				tradingAddress: { line1: 'Lock Keeper Cottage', city: 'Bath' },
			},
		});
		await expectOutputIsStored(run.json);
		expect(run.json[0]).toMatchObject({
			name: 'Friends of the Canal',
			entity: {
				organisationType: 'NON_PROFIT',
				organisationSubType: 'Charity',
				identifyingNumber: 'CH-1138',
			},
		});
	});

	it('leaves out optional fields that are blank, as $fromAI() gives an argument left out', async () => {
		const run = await create({
			status: 'PROSPECT',
			entityType: 'individual',
			firstName: 'Ada',
			lastName: 'Lovelace',
			individualFields: { email: '={{ "" }}', middleName: ' ' },
			additionalFields: {
				nextReviewDate: '={{ "" }}',
				partnerId: '={{ "" }}',
				referenceNumber: '',
			},
		});

		expect(run.error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1); // no firm record read for a blank partner
		expectPosted({
			status: 'PROSPECT',
			entity: { object: 'individual', firstName: 'Ada', lastName: 'Lovelace' },
		});
	});

	it('creates one client per input item, fields mapped with expressions', async () => {
		const run = await create(
			{
				status: 'PROSPECT',
				entityType: 'individual',
				firstName: '={{ $json.first }}',
				lastName: '={{ $json.last }}',
			},
			[
				{ first: 'Alan', last: 'Turing' },
				{ first: 'Joan', last: 'Clarke' },
			],
		);

		expect(run.error).toBeUndefined();
		expect(run.json.map((client) => client.name)).toEqual(['Alan Turing', 'Joan Clarke']);
		expect(
			sandbox()
				.requests()
				.map((request) => (request.body as IDataObject).entity),
		).toEqual([
			{ object: 'individual', firstName: 'Alan', lastName: 'Turing' },
			{ object: 'individual', firstName: 'Joan', lastName: 'Clarke' },
		]);
	});

	it.each([
		[
			'a partial date of birth of a sole trader',
			{
				entityType: 'sole_trader',
				firstName: 'A',
				lastName: 'B',
				soleTraderFields: { birth: '1970-01' },
			},
			"'Date of Birth' is incomplete",
		],
		[
			'a malformed email of an individual',
			{
				entityType: 'individual',
				firstName: 'A',
				lastName: 'B',
				individualFields: { email: 'a@b' },
			},
			"'Email' is not a valid email address",
		],
		[
			'a next review date that does not exist',
			{
				entityType: 'individual',
				firstName: 'A',
				lastName: 'B',
				additionalFields: { nextReviewDate: '2027-13-01' },
			},
			"'Next Review Date' is not a real date",
		],
	])('refuses %s before sending anything', async (_case, parameters, message) => {
		const run = await create({ status: 'PROSPECT', ...parameters });

		expect(run.error?.message).toBe(`${message} [item 0]`);
		expect(sandbox().requests()).toEqual([]);
	});
});
