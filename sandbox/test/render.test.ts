import type { Sandbox } from '../src';
import { startSandbox } from '../src';
import type { ApiClient } from './helpers';
import { apiClient, listAll } from './helpers';

const WEB = 'https://app.compliance-records.example';

/** Fails on any null outside addresses: unset optional fields are left out, never null. */
function expectNoNulls(value: unknown, path = ''): void {
	if (value === null) throw new Error(`${path} is null`);
	if (typeof value !== 'object') return;
	for (const [key, member] of Object.entries(value)) {
		if (!/Address$/.test(key)) expectNoNulls(member, `${path}.${key}`);
	}
}

describe('response shapes (spec §2)', () => {
	let sandbox: Sandbox;
	let api: ApiClient;
	let listItems: Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
	const byCategory = (category: string) =>
		listItems.find((client) => client.category === category)!;

	beforeAll(async () => {
		sandbox = await startSandbox({ clients: 60 });
		api = apiClient(sandbox);
		listItems = (await listAll(api, '/clients')).items;
	});
	afterAll(() => sandbox.close());

	it('client list items carry an entity reference and no partner, manager, business unit, services, createdAt or updatedAt', () => {
		const allowed = [
			'links',
			'id',
			'object',
			'name',
			'state',
			'referenceNumber',
			'category',
			'entity',
			'amlDeterminationStatus',
			'lastAmlDetermination',
			'lastModifiedAt',
			'nextReviewDate',
		];
		const objects = {
			INDIVIDUAL: 'individual',
			ORGANISATION: 'organisation',
			SOLE_TRADER: 'sole_trader',
		};
		for (const client of listItems) {
			expect(allowed).toEqual(expect.arrayContaining(Object.keys(client)));
			expect(Object.keys(client.entity).sort()).toEqual(['id', 'links', 'object']);
			expect(client.entity.object).toBe(objects[client.category as keyof typeof objects]);
			expect(client.links).toEqual({
				self: `${sandbox.baseUrl}/clients/${client.id}`,
				web: `${WEB}/clients/${client.id}`,
			});
			expectNoNulls(client);
		}
	});

	it('a single client carries everything: the full entity, staff and business unit references, services, createdAt, updatedAt', async () => {
		const withEverything = [];
		for (const item of listItems.slice(0, 20)) {
			const client = (await api.get(`/clients/${item.id}`)).body.data;
			const { entity, partner, manager, businessUnit, services, createdAt, updatedAt, ...head } =
				client;
			expect({ ...head, entity: item.entity }).toEqual(item);
			expect(entity.id).toBe(item.entity.id);
			expect(Array.isArray(services)).toBe(true);
			expect(new Date(createdAt).toISOString()).toBe(createdAt);
			expect(new Date(updatedAt).toISOString()).toBe(updatedAt);
			for (const staff of [partner, manager].filter(Boolean))
				expect(Object.keys(staff).sort()).toEqual(['id', 'name']);
			if (businessUnit) expect(Object.keys(businessUnit).sort()).toEqual(['id', 'name', 'type']);
			if (partner && manager && businessUnit) withEverything.push(client);
			expectNoNulls(client);
		}
		expect(withEverything.length).toBeGreaterThan(0);
	});

	it("an individual client's entity is the full individual, with a reference back to the client", async () => {
		const item = byCategory('INDIVIDUAL');
		const { entity } = (await api.get(`/clients/${item.id}`)).body.data;
		expect(entity).toMatchObject({
			links: {
				self: `${sandbox.baseUrl}/individuals/${entity.id}`,
				web: `${WEB}/individuals/${entity.id}`,
			},
			object: 'individual',
			firstName: expect.any(String),
			lastName: expect.any(String),
			client: {
				links: { self: `${sandbox.baseUrl}/clients/${item.id}`, web: `${WEB}/clients/${item.id}` },
				id: item.id,
			},
		});
		expect((await api.get(`/individuals/${entity.id}`)).body.data).toEqual(entity);
	});

	it("an organisation client's entity carries links.relatedParties and relatedPartiesCount", async () => {
		const item = byCategory('ORGANISATION');
		const { entity } = (await api.get(`/clients/${item.id}`)).body.data;
		expect(entity).toMatchObject({
			links: {
				self: `${sandbox.baseUrl}/organisations/${entity.id}`,
				web: `${WEB}/organisations/${entity.id}`,
				relatedParties: `${sandbox.baseUrl}/organisations/${entity.id}/related-parties`,
			},
			object: 'organisation',
			name: item.name,
			organisationType: expect.stringMatching(/^(COMPANY|NON_PROFIT|TRUST|OTHER)$/),
			relatedPartiesCount: expect.any(Number),
			client: { id: item.id },
		});
	});

	it("a sole trader client's entity holds the full individual, whose client reference is the sole trader's", async () => {
		const item = byCategory('SOLE_TRADER');
		const { entity } = (await api.get(`/clients/${item.id}`)).body.data;
		expect(entity).toMatchObject({
			links: {
				self: `${sandbox.baseUrl}/sole-traders/${entity.id}`,
				web: `${WEB}/sole-traders/${entity.id}`,
			},
			object: 'sole_trader',
			individual: {
				object: 'individual',
				firstName: expect.any(String),
				lastName: expect.any(String),
			},
			client: { id: item.id },
		});
		expect(entity.individual).not.toHaveProperty('client');
		expect((await api.get(`/individuals/${entity.individual.id}`)).body.data).toEqual(
			entity.individual,
		);
	});

	it('GET /individuals lists every individual of the firm, those of sole traders included', async () => {
		const individuals = (await listAll(api, '/individuals')).items;
		const expected = listItems.filter((client) => client.category !== 'ORGANISATION').length;
		expect(individuals).toHaveLength(expected);
		for (const individual of individuals) {
			expect(individual).toMatchObject({
				object: 'individual',
				id: expect.any(String),
				createdAt: expect.any(String),
				updatedAt: expect.any(String),
			});
			if (individual.birth)
				expect(Object.keys(individual.birth).sort()).toEqual(expect.arrayContaining(['year']));
		}
		const births = individuals.map((individual) => individual.birth).filter(Boolean);
		expect(births.some((birth) => birth.day && birth.month)).toBe(true);
		expect(births.some((birth) => !('day' in birth) && !('month' in birth))).toBe(true);
		expect(individuals.filter((individual) => individual.client)).toHaveLength(
			listItems.filter((client) => client.category === 'INDIVIDUAL').length,
		);
	});

	it('GET /organisations list items are organisations without relatedPartiesCount', async () => {
		const organisations = (await listAll(api, '/organisations')).items;
		expect(organisations).toHaveLength(
			listItems.filter((client) => client.category === 'ORGANISATION').length,
		);
		for (const organisation of organisations) {
			expect(organisation).toMatchObject({
				links: {
					self: expect.any(String),
					web: expect.any(String),
					relatedParties: expect.any(String),
				},
				object: 'organisation',
				name: expect.any(String),
				organisationType: expect.any(String),
				client: { id: expect.any(String) },
			});
			expect(organisation).not.toHaveProperty('relatedPartiesCount');
		}
		const imported = organisations.filter((organisation) => organisation.companyNumber);
		const other = organisations.filter((organisation) => !organisation.companyNumber);
		expect(imported.length).toBeGreaterThan(0);
		expect(other.some((organisation) => organisation.identifyingNumber)).toBe(true);
	});

	it('GET /firm has services, business units, staff with their roles, and the MLRO', async () => {
		const firm = (await api.get('/firm')).body.data;
		expect(firm.links).toEqual({ self: `${sandbox.baseUrl}/firm`, web: `${WEB}/firm` });
		for (const service of firm.services)
			expect(Object.keys(service).sort()).toEqual(['id', 'name']);
		for (const unit of firm.businessUnits)
			expect(Object.keys(unit).sort()).toEqual(['id', 'name', 'type']);
		for (const member of firm.staff) {
			expect(Object.keys(member).sort()).toEqual([
				'firstName',
				'id',
				'isManager',
				'isPartner',
				'isReviewer',
				'lastName',
			]);
		}
		expect(firm.staff.some((member: { isPartner: boolean }) => member.isPartner)).toBe(true);
		expect(firm.staff.some((member: { isManager: boolean }) => member.isManager)).toBe(true);
		expect(firm.staff.some((member: { isReviewer: boolean }) => member.isReviewer)).toBe(true);
		expect(firm.staff.map((member: { id: string }) => member.id)).toContain(firm.mlroStaffId);
	});
});
