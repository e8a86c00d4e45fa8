import type { Sandbox } from '../src';
import { startSandbox } from '../src';
import type { ApiClient } from './helpers';
import { apiClient, listAll, newIndividualClient } from './helpers';

describe('changes to clients, and lastModifiedAt', () => {
	let sandbox: Sandbox;
	let api: ApiClient;
	let firm: {
		staff: { id: string; isPartner: boolean; isManager: boolean }[];
		businessUnits: { id: string }[];
		services: { id: string }[];
	};
	const at = (iso: string) => sandbox.setClock({ frozenAt: iso });

	beforeEach(async () => {
		sandbox = await startSandbox({ clients: 12 });
		api = apiClient(sandbox);
		firm = (await api.get('/firm')).body.data;
	});
	afterEach(() => sandbox.close());

	const clientsOf = async (category: string) =>
		(await listAll(api, '/clients')).items.filter((client) => client.category === category);

	it('starts with an empty change log: the seed is not a change', () => {
		expect(sandbox.changes()).toEqual([]);
	});

	it('createClient stamps createdAt, updatedAt and lastModifiedAt with the service time and logs the change', async () => {
		at('2030-03-01T10:00:00.000Z');
		const created = (await api.post('/clients', newIndividualClient())).body.data;
		expect(created).toMatchObject({
			createdAt: '2030-03-01T10:00:00.000Z',
			updatedAt: '2030-03-01T10:00:00.000Z',
			lastModifiedAt: '2030-03-01T10:00:00.000Z',
			amlDeterminationStatus: 'NOT_STARTED',
			services: [],
		});
		expect(sandbox.changes()).toEqual([
			{ clientId: created.id, lastModifiedAt: '2030-03-01T10:00:00.000Z', cause: 'created' },
		]);
	});

	it('updateClient changes only the given fields and moves lastModifiedAt and updatedAt', async () => {
		const [client] = (await api.get('/clients?limit=1')).body.data;
		const before = (await api.get(`/clients/${client.id}`)).body.data;
		at('2030-03-01T11:00:00.000Z');
		const partner = firm.staff.find(
			(member) => member.isPartner && member.id !== before.partner?.id,
		)!;
		const reply = await api.patch(`/clients/${client.id}`, {
			partnerId: partner.id,
			status: 'EXISTING',
		});
		expect(reply.status).toBe(200);
		expect(reply.body.data).toEqual({
			...before,
			partner: { id: partner.id, name: expect.any(String) },
			state: 'EXISTING',
			lastModifiedAt: '2030-03-01T11:00:00.000Z',
			updatedAt: '2030-03-01T11:00:00.000Z',
		});
		expect(sandbox.changes()).toEqual([
			{ clientId: client.id, lastModifiedAt: '2030-03-01T11:00:00.000Z', cause: 'updated' },
		]);
	});

	it('updateClient clears every nullable field with null', async () => {
		const created = (
			await api.post(
				'/clients',
				newIndividualClient({
					partnerId: firm.staff.find((member) => member.isPartner)!.id,
					managerId: firm.staff.find((member) => member.isManager)!.id,
					businessUnitId: firm.businessUnits[0].id,
					serviceIds: [firm.services[0].id],
					referenceNumber: 'CLEAR-ME',
					nextReviewDate: '2031-01-31',
				}),
			)
		).body.data;
		expect(created).toMatchObject({
			referenceNumber: 'CLEAR-ME',
			nextReviewDate: '2031-01-31',
			services: [firm.services[0].id],
		});
		const cleared = await api.patch(`/clients/${created.id}`, {
			partnerId: null,
			managerId: null,
			businessUnitId: null,
			referenceNumber: null,
			nextReviewDate: null,
			serviceIds: [],
		});
		expect(cleared.status).toBe(200);
		for (const field of [
			'partner',
			'manager',
			'businessUnit',
			'referenceNumber',
			'nextReviewDate',
		]) {
			expect(cleared.body.data).not.toHaveProperty(field);
		}
		expect(cleared.body.data.services).toEqual([]);
	});

	it('an update that changes no value does not move lastModifiedAt', async () => {
		const [client] = (await api.get('/clients?limit=1')).body.data;
		const full = (await api.get(`/clients/${client.id}`)).body.data;
		await api.patch(`/clients/${client.id}`, {});
		const same = await api.patch(`/clients/${client.id}`, {
			serviceIds: full.services,
			referenceNumber: full.referenceNumber ?? null,
			nextReviewDate: full.nextReviewDate ?? null,
		});
		expect(same.status).toBe(200);
		expect((await api.get(`/clients/${client.id}`)).body.data.lastModifiedAt).toBe(
			full.lastModifiedAt,
		);
		expect(sandbox.changes()).toEqual([]);
	});

	it("updateIndividual on a client's individual moves the client's lastModifiedAt, and its name follows", async () => {
		const [client] = await clientsOf('INDIVIDUAL');
		const before = (await api.get(`/clients/${client.id}`)).body.data;
		at('2030-03-02T09:00:00.000Z');
		const reply = await api.patch(`/individuals/${client.entity.id}`, {
			firstName: 'Grace',
			middleName: null,
		});
		expect(reply.status).toBe(200);
		expect(reply.body.data).toMatchObject({
			firstName: 'Grace',
			updatedAt: '2030-03-02T09:00:00.000Z',
		});
		expect(reply.body.data).not.toHaveProperty('middleName');
		const after = (await api.get(`/clients/${client.id}`)).body.data;
		expect(after.lastModifiedAt).toBe('2030-03-02T09:00:00.000Z');
		expect(after.name).toBe(`Grace ${reply.body.data.lastName}`);
		expect(after.updatedAt).toBe(before.updatedAt); // the client record itself did not change
		expect(sandbox.changes()).toEqual([
			{
				clientId: client.id,
				lastModifiedAt: '2030-03-02T09:00:00.000Z',
				cause: 'individualUpdated',
			},
		]);
	});

	it("updateIndividual on a sole trader's individual moves the sole trader client's lastModifiedAt", async () => {
		const [client] = await clientsOf('SOLE_TRADER');
		const full = (await api.get(`/clients/${client.id}`)).body.data;
		at('2030-03-03T09:00:00.000Z');
		const reply = await api.patch(`/individuals/${full.entity.individual.id}`, {
			email: 'new@example.com',
			birth: { day: 1, month: 2, year: 1980 },
			residentialAddress: { line1: '1 New Street', city: 'York', postcode: null },
		});
		expect(reply.status).toBe(200);
		expect(reply.body.data.residentialAddress).toEqual({
			line1: '1 New Street',
			city: 'York',
			postcode: null,
		});
		const after = (await api.get(`/clients/${client.id}`)).body.data;
		expect(after.lastModifiedAt).toBe('2030-03-03T09:00:00.000Z');
		expect(after.entity.individual).toMatchObject({
			email: 'new@example.com',
			birth: { day: 1, month: 2, year: 1980 },
		});
		expect(sandbox.changes()).toEqual([
			{
				clientId: client.id,
				lastModifiedAt: '2030-03-03T09:00:00.000Z',
				cause: 'individualUpdated',
			},
		]);
	});

	it('completing an AML determination moves lastModifiedAt and schedules the next review by risk', async () => {
		const [client] = (await api.get('/clients?limit=1')).body.data;
		at('2030-03-04T09:00:00.000Z');
		sandbox.completeAmlDetermination(client.id, 'HIGH');
		const after = (await api.get(`/clients/${client.id}`)).body.data;
		expect(after).toMatchObject({
			amlDeterminationStatus: 'COMPLETE',
			lastAmlDetermination: { riskLevel: 'HIGH', completedAt: '2030-03-04T09:00:00.000Z' },
			nextReviewDate: '2030-09-04',
			lastModifiedAt: '2030-03-04T09:00:00.000Z',
		});
		expect(sandbox.changes()).toEqual([
			{
				clientId: client.id,
				lastModifiedAt: '2030-03-04T09:00:00.000Z',
				cause: 'amlDetermination',
			},
		]);
	});

	describe('referenceNumber is unique within the firm', () => {
		it('answers 409 on a create or an update that would duplicate it', async () => {
			const [first, second] = (await api.get('/clients?limit=2')).body.data;
			await api.patch(`/clients/${first.id}`, { referenceNumber: 'UNIQUE-1' });
			const create = await api.post(
				'/clients',
				newIndividualClient({ referenceNumber: 'UNIQUE-1' }),
			);
			expect(create.status).toBe(409);
			expect(create.body.message).toMatch(/referenceNumber 'UNIQUE-1' is already used/);
			const update = await api.patch(`/clients/${second.id}`, {
				referenceNumber: 'UNIQUE-1',
				status: 'EXISTING',
			});
			expect(update.status).toBe(409);
			expect((await api.get(`/clients/${second.id}`)).body.data.referenceNumber).toBe(
				second.referenceNumber,
			);
			expect((await api.get('/clients')).body.meta.total).toBe(12);
		});

		it('lets a client keep its own number, and frees a number when it is cleared', async () => {
			const [first, second] = (await api.get('/clients?limit=2')).body.data;
			await api.patch(`/clients/${first.id}`, { referenceNumber: 'UNIQUE-2' });
			expect(
				(await api.patch(`/clients/${first.id}`, { referenceNumber: 'UNIQUE-2' })).status,
			).toBe(200);
			await api.patch(`/clients/${first.id}`, { referenceNumber: null });
			expect(
				(await api.patch(`/clients/${second.id}`, { referenceNumber: 'UNIQUE-2' })).status,
			).toBe(200);
		});

		it('is per firm: another firm may use the same number', async () => {
			const [first] = (await api.get('/clients?limit=1')).body.data;
			await api.patch(`/clients/${first.id}`, { referenceNumber: 'SHARED-1' });
			const other = apiClient(sandbox, sandbox.otherFirm.apiKey);
			expect(
				(await other.post('/clients', newIndividualClient({ referenceNumber: 'SHARED-1' }))).status,
			).toBe(201);
		});
	});
});
