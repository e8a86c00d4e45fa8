import type { Sandbox } from '../src';
import { startSandbox } from '../src';
import type { ApiClient } from './helpers';
import { apiClient, newIndividualClient, send } from './helpers';

describe('request validation (spec §4.1, §4.3)', () => {
	let sandbox: Sandbox;
	let api: ApiClient;
	let staff: Record<string, string>;
	let otherFirmServiceId: string;
	beforeAll(async () => {
		sandbox = await startSandbox({ clients: 5 });
		api = apiClient(sandbox);
		const firm = (await api.get('/firm')).body.data;
		staff = Object.fromEntries(
			firm.staff.map((member: { id: string; lastName: string }) => [member.lastName, member.id]),
		);
		otherFirmServiceId = (await apiClient(sandbox, sandbox.otherFirm.apiKey).get('/firm')).body.data
			.services[0].id;
	});
	afterAll(() => sandbox.close());

	const person = { firstName: 'Ada', lastName: 'Lovelace' };
	const individual = (fields: Record<string, unknown>) =>
		newIndividualClient({ entity: { object: 'individual', ...person, ...fields } });
	const soleTrader = (
		individualFields: Record<string, unknown>,
		fields: Record<string, unknown> = {},
	) =>
		newIndividualClient({
			entity: { object: 'sole_trader', individual: { ...person, ...individualFields }, ...fields },
		});

	// [what is wrong, body, message the 400 must carry]
	const createCases: [string, () => unknown, RegExp][] = [
		['a body that is an array', () => [], /The request body must be a JSON object/],
		['an unknown field', () => newIndividualClient({ colour: 'blue' }), /Unknown field colour/],
		['no status', () => ({ entity: { object: 'individual', ...person } }), /status is required/],
		[
			'a status other than PROSPECT or EXISTING',
			() => newIndividualClient({ status: 'ARCHIVED' }),
			/status must be one of PROSPECT, EXISTING/,
		],
		['no entity', () => ({ status: 'PROSPECT' }), /entity is required/],
		[
			'an entity that is not an object',
			() => newIndividualClient({ entity: 'Ada' }),
			/entity must be a JSON object/,
		],
		[
			'an entity without object',
			() => newIndividualClient({ entity: person }),
			/entity.object is required/,
		],
		[
			'an unknown entity object',
			() => newIndividualClient({ entity: { object: 'company' } }),
			/entity.object must be one of individual, sole_trader, import_uk_company, organisation/,
		],
		[
			'an individual without firstName',
			() => newIndividualClient({ entity: { object: 'individual', lastName: 'L' } }),
			/entity.firstName is required/,
		],
		[
			'an individual without lastName',
			() => newIndividualClient({ entity: { object: 'individual', firstName: 'F' } }),
			/entity.lastName is required/,
		],
		[
			'an empty firstName',
			() => individual({ firstName: ' ' }),
			/entity.firstName must not be empty/,
		],
		[
			'a firstName that is not a string',
			() => individual({ firstName: 5 }),
			/entity.firstName must be a string/,
		],
		[
			'an unknown field in the individual',
			() => individual({ nickname: 'Ada' }),
			/Unknown field entity.nickname/,
		],
		[
			'a null optional field',
			() => individual({ middleName: null }),
			/entity.middleName must not be null/,
		],
		[
			'an invalid email',
			() => individual({ email: 'ada-at-example.com' }),
			/entity.email must be an email address/,
		],
		[
			'a birth without its day',
			() => individual({ birth: { month: 12, year: 1815 } }),
			/entity.birth.day is required: entity.birth needs day, month and year together/,
		],
		[
			'a birth without its year',
			() => individual({ birth: { day: 10, month: 12 } }),
			/entity.birth.year is required/,
		],
		[
			'a birth that is not a real date',
			() => individual({ birth: { day: 31, month: 4, year: 1990 } }),
			/entity.birth is not a real date/,
		],
		[
			'a birth day that is not a number',
			() => individual({ birth: { day: '10', month: 12, year: 1815 } }),
			/entity.birth.day must be a whole number/,
		],
		[
			'an unknown field in birth',
			() => individual({ birth: { day: 10, month: 12, year: 1815, hour: 3 } }),
			/Unknown field entity.birth.hour/,
		],
		[
			'an unknown field in an address',
			() => individual({ residentialAddress: { street: 'x' } }),
			/Unknown field entity.residentialAddress.street/,
		],
		[
			'an address member that is not a string',
			() => individual({ residentialAddress: { city: 5 } }),
			/entity.residentialAddress.city must be a string or null/,
		],
		[
			'a sole trader without its individual',
			() => newIndividualClient({ entity: { object: 'sole_trader', tradingName: 'T' } }),
			/entity.individual is required/,
		],
		[
			'a sole trader whose individual lacks firstName',
			() => soleTrader({ firstName: undefined }),
			/entity.individual.firstName is required/,
		],
		[
			'an unknown field in a sole trader individual',
			() => soleTrader({ age: 40 }),
			/Unknown field entity.individual.age/,
		],
		[
			'a sole trader individual with a bad birth',
			() => soleTrader({ birth: { day: 29, month: 2, year: 2023 } }),
			/entity.individual.birth is not a real date/,
		],
		[
			'an unknown field in a sole trader',
			() => soleTrader({}, { vatNumber: 'GB1' }),
			/Unknown field entity.vatNumber/,
		],
		[
			'an import without companyNumber',
			() => newIndividualClient({ entity: { object: 'import_uk_company' } }),
			/entity.companyNumber is required/,
		],
		[
			'an import of a number the registry does not know',
			() =>
				newIndividualClient({ entity: { object: 'import_uk_company', companyNumber: '00000001' } }),
			/entity.companyNumber '00000001' was not found in the company registry .*12345678/,
		],
		[
			'an import that names the company itself',
			() =>
				newIndividualClient({
					entity: { object: 'import_uk_company', companyNumber: '12345678', name: 'X' },
				}),
			/Unknown field entity.name/,
		],
		[
			'an organisation without name',
			() => newIndividualClient({ entity: { object: 'organisation', type: 'TRUST' } }),
			/entity.name is required/,
		],
		[
			'an organisation without type',
			() => newIndividualClient({ entity: { object: 'organisation', name: 'N' } }),
			/entity.type is required/,
		],
		[
			'an organisation of an unknown type',
			() => newIndividualClient({ entity: { object: 'organisation', name: 'N', type: 'CHARITY' } }),
			/entity.type must be one of COMPANY, NON_PROFIT, TRUST, OTHER/,
		],
		[
			'an unknown field in a trading address',
			() =>
				newIndividualClient({
					entity: {
						object: 'organisation',
						name: 'N',
						type: 'OTHER',
						tradingAddress: { zip: '1' },
					},
				}),
			/Unknown field entity.tradingAddress.zip/,
		],
		[
			'an unknown partnerId',
			() => newIndividualClient({ partnerId: 'nobody' }),
			/partnerId 'nobody' is not a partner of this firm/,
		],
		[
			'a partnerId of staff who is not a partner',
			() => newIndividualClient({ partnerId: staff.Gallagher }),
			/is not a partner of this firm/,
		],
		[
			'a managerId of staff who is not a manager',
			() => newIndividualClient({ managerId: staff.Harwood }),
			/managerId .* is not a manager of this firm/,
		],
		[
			'an unknown businessUnitId',
			() => newIndividualClient({ businessUnitId: 'nowhere' }),
			/businessUnitId 'nowhere' is not a business unit of this firm/,
		],
		[
			'serviceIds that is not an array',
			() => newIndividualClient({ serviceIds: 'audit' }),
			/serviceIds must be an array of strings/,
		],
		[
			'a service of another firm',
			() => newIndividualClient({ serviceIds: [otherFirmServiceId] }),
			/serviceIds\[0\] .* is not a service of this firm/,
		],
		[
			'the same service twice',
			() => newIndividualClient({ serviceIds: [otherFirmServiceId, otherFirmServiceId] }),
			/serviceIds lists the same id twice/,
		],
		[
			'an empty referenceNumber',
			() => newIndividualClient({ referenceNumber: '' }),
			/referenceNumber must not be empty/,
		],
		[
			'a referenceNumber that is not a string',
			() => newIndividualClient({ referenceNumber: 42 }),
			/referenceNumber must be a string/,
		],
		[
			'a nextReviewDate not in YYYY-MM-DD',
			() => newIndividualClient({ nextReviewDate: '01/02/2027' }),
			/nextReviewDate must be a date in the form YYYY-MM-DD/,
		],
		[
			'a nextReviewDate that is not a real date',
			() => newIndividualClient({ nextReviewDate: '2027-02-30' }),
			/nextReviewDate is not a real date/,
		],
	];

	it.each(createCases)(
		'createClient refuses %s with 400 naming the field',
		async (_what, body, message) => {
			const reply = await api.post('/clients', body());
			expect(reply.status).toBe(400);
			expect(reply.body.message).toMatch(message);
		},
	);

	it('createClient refused nothing it should accept, and stored nothing it refused', async () => {
		expect((await api.get('/clients')).body.meta.total).toBe(5);
		expect(
			(
				await api.post(
					'/clients',
					individual({
						middleName: 'King',
						email: 'ada@example.com',
						birth: { day: 10, month: 12, year: 1815 },
					}),
				)
			).status,
		).toBe(201);
	});

	it('answers 400 for a body that is not JSON, and 415 for one not sent as JSON', async () => {
		const broken = await api.request('POST', '/clients', undefined, {
			'content-type': 'application/json',
		});
		expect(broken.status).toBe(400);
		expect(broken.body.message).toMatch(/not valid JSON/);
		const truncated = await send(`${sandbox.baseUrl}/clients`, {
			method: 'POST',
			headers: {
				'accept-version': '1.0.0',
				authorization: `Bearer ${sandbox.apiKey}`,
				'content-type': 'application/json',
			},
			body: '{"status": "PROSPECT",',
		});
		expect(truncated.status).toBe(400);
		expect(truncated.body.message).toMatch(/not valid JSON/);
		const form = await api.request('POST', '/clients', undefined, { 'content-type': 'text/plain' });
		expect(form.status).toBe(415);
		expect(form.body.message).toMatch(/Content-Type must be application\/json/);
	});

	/** A PATCH answered 400 with the message, after which the record reads exactly as before. */
	const expectRefusedUnchanged = async (path: string, body: unknown, message: RegExp) => {
		const before = (await api.get(path)).body;
		const reply = await api.patch(path, body);
		expect(reply.status).toBe(400);
		expect(reply.body.message).toMatch(message);
		expect((await api.get(path)).body).toEqual(before);
	};

	describe('updateClient', () => {
		let clientId: string;
		beforeAll(async () => {
			clientId = (await api.get('/clients?limit=1')).body.data[0].id;
		});

		it.each<[string, unknown, RegExp]>([
			[
				'the entity (it cannot change)',
				{ entity: { object: 'individual', ...person } },
				/Unknown field entity/,
			],
			['an unknown field', { state: 'EXISTING' }, /Unknown field state/],
			['a null status', { status: null }, /status cannot be null/],
			[
				'a status other than PROSPECT or EXISTING',
				{ status: 'DISCARDED' },
				/status must be one of PROSPECT, EXISTING/,
			],
			['null serviceIds', { serviceIds: null }, /serviceIds cannot be null/],
			[
				'a partnerId of staff who is not a partner',
				{ partnerId: 'nobody' },
				/partnerId 'nobody' is not a partner/,
			],
			[
				'a nextReviewDate that is not a real date',
				{ nextReviewDate: '2027-04-31' },
				/nextReviewDate is not a real date/,
			],
			['an empty referenceNumber', { referenceNumber: '  ' }, /referenceNumber must not be empty/],
		])('refuses %s with 400, changing nothing', (_what, body, message) =>
			expectRefusedUnchanged(`/clients/${clientId}`, body, message),
		);
	});

	describe('updateIndividual', () => {
		let individualId: string;
		beforeAll(async () => {
			individualId = (await api.get('/individuals?limit=1')).body.data[0].id;
		});

		it.each<[string, unknown, RegExp]>([
			['a null firstName', { firstName: null }, /firstName cannot be null/],
			['a null lastName', { lastName: null }, /lastName cannot be null/],
			['an empty lastName', { lastName: '' }, /lastName must not be empty/],
			['an invalid email', { email: 'nobody' }, /email must be an email address/],
			['a birth without its month', { birth: { day: 1, year: 1990 } }, /birth.month is required/],
			[
				'a birth that is not a real date',
				{ birth: { day: 29, month: 2, year: 2023 } },
				/birth is not a real date/,
			],
			['an unknown field', { client: null }, /Unknown field client/],
			[
				'an unknown address field',
				{ residentialAddress: { town: 'York' } },
				/Unknown field residentialAddress.town/,
			],
		])('refuses %s with 400, changing nothing', (_what, body, message) =>
			expectRefusedUnchanged(`/individuals/${individualId}`, body, message),
		);
	});
});
