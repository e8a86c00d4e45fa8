import type { Sandbox } from '../src';
import { startSandbox } from '../src';
import type { ApiClient } from './helpers';
import { apiClient, listAll, newIndividualClient, send } from './helpers';

describe('the API over HTTP (spec §4)', () => {
	let sandbox: Sandbox;
	let api: ApiClient;
	let other: ApiClient;
	beforeAll(async () => {
		sandbox = await startSandbox({ clients: 40 });
		api = apiClient(sandbox);
		other = apiClient(sandbox, sandbox.otherFirm.apiKey);
	});
	afterAll(() => sandbox.close());

	describe('accept-version', () => {
		it.each(['/clients', '/firm', '/individuals', '/organisations'])(
			'is required on %s: missing or not 1.0.0 answers 400',
			async (path) => {
				const missing = await send(`${sandbox.baseUrl}${path}`, {
					headers: { authorization: `Bearer ${sandbox.apiKey}` },
				});
				expect(missing.status).toBe(400);
				expect(missing.body.message).toBe(
					'Missing accept-version header: send accept-version: 1.0.0',
				);
				for (const version of ['2.0.0', '1.0', '']) {
					const wrong = await api.get(path, { 'accept-version': version });
					expect(wrong.status).toBe(400);
					expect(wrong.body.message).toMatch(/accept-version/);
				}
			},
		);

		it('is checked before the credentials', async () => {
			expect((await send(`${sandbox.baseUrl}/firm`)).status).toBe(400);
		});
	});

	it('answers 404 with a message for unknown ids', async () => {
		for (const path of ['/clients/no-such-id', '/individuals/no-such-id']) {
			const reply = await api.get(path);
			expect(reply.status).toBe(404);
			expect(reply.body).toEqual({
				message: expect.stringMatching(
					/^No (client|individual) with id 'no-such-id' in your firm$/,
				),
			});
		}
		expect((await api.get('/clients/%E0%A4%A')).body).toEqual({
			message: 'The id in the path is not correctly URL-encoded',
		});
		expect((await api.patch('/clients/no-such-id', { status: 'EXISTING' })).status).toBe(404);
		expect((await api.patch('/individuals/no-such-id', { firstName: 'X' })).status).toBe(404);
	});

	it('answers 404 for unknown paths, 405 with Allow for unknown methods', async () => {
		for (const path of [
			'/',
			'/clients/',
			'/clients/a/b',
			'/organisations/x',
			'/sole-traders',
			'/v1/clients',
		]) {
			const reply = await api.get(path);
			expect(reply.status).toBe(404);
			expect(reply.body.message).toMatch(/No route GET/);
		}
		const reply = await api.request('DELETE', '/clients');
		expect(reply.status).toBe(405);
		expect(reply.headers.get('allow')).toBe('GET, POST');
		expect((await api.request('POST', '/firm', {})).status).toBe(405);
	});

	it('refuses query parameters an endpoint does not take, or takes twice', async () => {
		const cases: [string, RegExp][] = [
			['/clients?page=2', /Unknown query parameter 'page'/],
			[
				'/individuals?sinceModifiedAt=2026-01-01T00:00:00Z',
				/Unknown query parameter 'sinceModifiedAt'/,
			],
			['/firm?expand=staff', /this endpoint takes no query parameters/],
			['/clients?limit=5&limit=6', /given more than once/],
		];
		for (const [path, message] of cases) {
			const reply = await api.get(path);
			expect(reply.status).toBe(400);
			expect(reply.body.message).toMatch(message);
		}
	});

	describe('firm isolation', () => {
		it("answers 404 for another firm's client and individual, for reads and writes", async () => {
			const [theirs] = (await other.get('/clients')).body.data;
			const [theirIndividual] = (await other.get('/individuals')).body.data;
			expect((await api.get(`/clients/${theirs.id}`)).status).toBe(404);
			expect((await api.patch(`/clients/${theirs.id}`, { status: 'EXISTING' })).status).toBe(404);
			expect((await api.get(`/individuals/${theirIndividual.id}`)).status).toBe(404);
			expect(
				(await api.patch(`/individuals/${theirIndividual.id}`, { firstName: 'Mallory' })).status,
			).toBe(404);
			expect((await other.get(`/individuals/${theirIndividual.id}`)).body.data.firstName).not.toBe(
				'Mallory',
			);
			expect((await other.get(`/clients/${theirs.id}`)).body.data.lastModifiedAt).toBe(
				theirs.lastModifiedAt,
			);
		});

		it('never mixes lists: each firm lists only its own records', async () => {
			for (const path of ['/clients', '/individuals', '/organisations']) {
				const mine = new Set((await listAll(api, path)).items.map((item) => item.id));
				const theirs = (await listAll(other, path)).items.map((item) => item.id);
				expect(theirs.filter((id) => mine.has(id))).toEqual([]);
			}
			expect((await api.get('/clients')).body.meta.total).toBeGreaterThanOrEqual(40);
			expect((await other.get('/clients')).body.meta.total).toBeLessThan(40);
			expect((await other.get('/firm')).body.data.name).not.toBe(sandbox.firm.name);
		});

		it('creates clients in the firm of the credential only', async () => {
			const created = await other.post('/clients', newIndividualClient());
			expect(created.status).toBe(201);
			expect((await api.get(`/clients/${created.body.data.id}`)).status).toBe(404);
			expect((await other.get(`/clients/${created.body.data.id}`)).status).toBe(200);
		});
	});

	describe('createClient', () => {
		it.each([
			[
				'an individual',
				{
					object: 'individual',
					firstName: 'Ada',
					middleName: 'King',
					lastName: 'Lovelace',
					email: 'ada@example.com',
					birth: { day: 10, month: 12, year: 1815 },
					residentialAddress: {
						line1: '12 St James Square',
						city: 'London',
						postcode: 'SW1Y 4JH',
						country: 'United Kingdom',
					},
				},
				'INDIVIDUAL',
				'individual',
				'Ada Lovelace',
			],
			[
				'a sole trader',
				{
					object: 'sole_trader',
					tradingName: 'Babbage Engines',
					individual: { firstName: 'Charles', lastName: 'Babbage' },
				},
				'SOLE_TRADER',
				'sole_trader',
				'Babbage Engines',
			],
			[
				'a sole trader without a trading name',
				{ object: 'sole_trader', individual: { firstName: 'Mary', lastName: 'Somerville' } },
				'SOLE_TRADER',
				'sole_trader',
				'Mary Somerville',
			],
			[
				'an organisation',
				{
					object: 'organisation',
					name: 'Analytical Society',
					type: 'NON_PROFIT',
					subType: 'charity',
					identifyingNumber: '1000001',
					registeredAddress: { city: 'Cambridge' },
				},
				'ORGANISATION',
				'organisation',
				'Analytical Society',
			],
		])(
			'creates %s: 201 with the full client, the same as a later GET',
			async (_what, entity, category, object, name) => {
				const created = await api.post('/clients', { status: 'EXISTING', entity });
				expect(created.status).toBe(201);
				expect(created.body.data).toMatchObject({
					object: 'client',
					state: 'EXISTING',
					category,
					name,
					entity: { object },
				});
				expect((await api.get(`/clients/${created.body.data.id}`)).body).toEqual(created.body);
			},
		);

		it('imports a UK company from the registry: name, type COMPANY, registered address and company number filled in', async () => {
			const created = await api.post('/clients', {
				status: 'PROSPECT',
				entity: {
					object: 'import_uk_company',
					companyNumber: 'sc412873',
					tradingAddress: { line1: '1 Distillery Lane', city: 'Speyside' },
				},
			});
			expect(created.status).toBe(201);
			expect(created.body.data.entity).toMatchObject({
				object: 'organisation',
				name: 'Glenmorie Distillers Limited',
				companyNumber: 'SC412873',
				organisationType: 'COMPANY',
				registeredAddress: { line1: '8 Melville Street', city: 'Edinburgh', postcode: 'EH3 7NS' },
				tradingAddress: { line1: '1 Distillery Lane', city: 'Speyside' },
			});
			expect(created.body.data.entity).not.toHaveProperty('identifyingNumber');
		});

		it('links staff, business unit and services by id', async () => {
			const firm = (await api.get('/firm')).body.data;
			const partner = firm.staff.find((member: { isPartner: boolean }) => member.isPartner);
			const manager = firm.staff.find((member: { isManager: boolean }) => member.isManager);
			const created = await api.post(
				'/clients',
				newIndividualClient({
					partnerId: partner.id,
					managerId: manager.id,
					businessUnitId: firm.businessUnits[1].id,
					serviceIds: [firm.services[2].id, firm.services[0].id],
					referenceNumber: 'API-LINKS-1',
					nextReviewDate: '2027-06-30',
				}),
			);
			expect(created.body.data).toMatchObject({
				partner: { id: partner.id, name: `${partner.firstName} ${partner.lastName}` },
				manager: { id: manager.id, name: `${manager.firstName} ${manager.lastName}` },
				businessUnit: firm.businessUnits[1],
				services: [firm.services[2].id, firm.services[0].id],
				referenceNumber: 'API-LINKS-1',
				nextReviewDate: '2027-06-30',
			});
		});
	});

	it('GET /firm answers the firm of the credential', async () => {
		const firm = (await api.get('/firm')).body.data;
		expect(firm).toMatchObject({ id: sandbox.firm.id, object: 'firm', name: sandbox.firm.name });
		expect(firm.staff.map((member: { id: string }) => member.id)).toContain(firm.mlroStaffId);
	});

	it('serves the API under apiPath when one is set, with links that include it', async () => {
		const prefixed = await startSandbox({ apiPath: '/v1', clients: 1 });
		try {
			expect(prefixed.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
			const client = apiClient(prefixed);
			const [first] = (await client.get('/clients')).body.data;
			expect(first.links.self).toBe(`${prefixed.baseUrl}/clients/${first.id}`);
			expect((await client.get(`/clients/${first.id}`)).status).toBe(200);
			const outside = await send(`${new URL(prefixed.baseUrl).origin}/clients`, {
				headers: { 'accept-version': '1.0.0', authorization: `Bearer ${prefixed.apiKey}` },
			});
			expect(outside.status).toBe(404);
			expect(prefixed.apiScope).toBe(`${prefixed.baseUrl}/api:full`);
		} finally {
			await prefixed.close();
		}
	});
});
