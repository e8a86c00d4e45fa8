import type { Sandbox } from '../src';
import { startSandbox } from '../src';
import { apiClient, listAll } from './helpers';

const DAY_MS = 86_400_000;

/** Everything the API shows of a firm, with its own base URL taken out of the links. */
async function snapshot(sandbox: Sandbox) {
	const api = apiClient(sandbox);
	const clients = (await listAll(api, '/clients')).items;
	const full = await Promise.all(
		clients.map(async (client) => (await api.get(`/clients/${client.id}`)).body.data),
	);
	const data = {
		firm: (await api.get('/firm')).body.data,
		clients: full,
		individuals: (await listAll(api, '/individuals')).items,
		organisations: (await listAll(api, '/organisations')).items,
	};
	return JSON.parse(JSON.stringify(data).split(sandbox.baseUrl).join('<base>'));
}

describe('seed data', () => {
	const sandboxes: Sandbox[] = [];
	const start = async (options: Parameters<typeof startSandbox>[0]) => {
		const sandbox = await startSandbox(options);
		sandboxes.push(sandbox);
		return sandbox;
	};
	afterAll(() => Promise.all(sandboxes.map((sandbox) => sandbox.close())));

	it('is the same for the same seed and number of clients (ids included), and differs for another seed', async () => {
		const [first, second, other] = await Promise.all([
			start({ clients: 40, seed: 7 }),
			start({ clients: 40, seed: 7 }),
			start({ clients: 40, seed: 8 }),
		]);
		const firstData = await snapshot(first);
		expect(await snapshot(second)).toEqual(firstData);
		expect(second.firm.id).toBe(first.firm.id);
		const otherData = await snapshot(other);
		expect(otherData.firm.id).not.toBe(firstData.firm.id);
		expect(otherData.clients.map((client: { name: string }) => client.name)).not.toEqual(
			firstData.clients.map((client: { name: string }) => client.name),
		);
	});

	it('shows every category, state, AML status, risk level and kind of birth date even in a firm of 11 clients', async () => {
		const { clients, individuals, organisations } = await snapshot(await start({ clients: 11 }));
		const values = (pick: (client: Record<string, any>) => unknown) => new Set(clients.map(pick)); // eslint-disable-line @typescript-eslint/no-explicit-any
		expect(values((client) => client.category)).toEqual(
			new Set(['INDIVIDUAL', 'ORGANISATION', 'SOLE_TRADER']),
		);
		expect(values((client) => client.state)).toEqual(
			new Set(['PROSPECT', 'EXISTING', 'ARCHIVED', 'DISCARDED']),
		);
		expect(values((client) => client.amlDeterminationStatus)).toEqual(
			new Set(['NOT_STARTED', 'IN_PROGRESS', 'COMPLETE']),
		);
		expect(values((client) => client.lastAmlDetermination?.riskLevel)).toEqual(
			new Set([undefined, 'PENDING', 'LOW', 'NORMAL', 'MEDIUM', 'HIGH']),
		);
		expect(
			organisations.some((organisation: { companyNumber?: string }) => organisation.companyNumber),
		).toBe(true);
		expect(
			organisations.some(
				(organisation: { identifyingNumber?: string }) => organisation.identifyingNumber,
			),
		).toBe(true);
		expect(
			new Set(
				organisations.map(
					(organisation: { organisationType: string }) => organisation.organisationType,
				),
			),
		).toEqual(new Set(['COMPANY', 'NON_PROFIT', 'TRUST', 'OTHER']));
		const births = individuals
			.map((individual: { birth?: object }) => individual.birth)
			.filter(Boolean);
		expect(births).toContainEqual({
			day: expect.any(Number),
			month: expect.any(Number),
			year: expect.any(Number),
		});
		expect(births).toContainEqual({ year: expect.any(Number) });
	});

	it('dates everything before the start day, in creation order, with review dates over the coming year', async () => {
		const sandbox = await start({ clients: 150 });
		const startDay = Math.floor(Date.parse(sandbox.now()) / DAY_MS) * DAY_MS;
		const { clients } = await snapshot(sandbox);
		const created = clients.map((client: { createdAt: string }) => Date.parse(client.createdAt));
		expect(created).toEqual([...created].sort((a, b) => a - b));
		for (const client of clients) {
			expect(Date.parse(client.lastModifiedAt)).toBeLessThan(startDay);
			expect(Date.parse(client.lastModifiedAt)).toBeGreaterThanOrEqual(
				Date.parse(client.createdAt),
			);
			expect(client.nextReviewDate !== undefined).toBe(client.lastAmlDetermination !== undefined);
			if (client.nextReviewDate) {
				const review = Date.parse(`${client.nextReviewDate}T00:00:00Z`);
				expect(review).toBeGreaterThanOrEqual(startDay);
				expect(review).toBeLessThan(startDay + 365 * DAY_MS);
			}
		}
		const reviews = clients
			.filter((client: { nextReviewDate?: string }) => client.nextReviewDate)
			.map((client: { nextReviewDate: string }) => Date.parse(client.nextReviewDate));
		expect(Math.max(...reviews) - Math.min(...reviews)).toBeGreaterThan(300 * DAY_MS);
	});

	it('has realistic UK names and addresses, and staff with roles and an MLRO', async () => {
		const { firm, individuals } = await snapshot(await start({ clients: 50 }));
		for (const individual of individuals) {
			expect(individual.firstName).toMatch(/^[A-Z][a-z]+$/);
			if (individual.residentialAddress) {
				expect(individual.residentialAddress).toMatchObject({
					line1: expect.any(String),
					city: expect.any(String),
					postcode: expect.stringMatching(/^[A-Z]{1,2}\d{1,2}[A-Z]? \d[A-Z]{2}$/),
					country: 'United Kingdom',
				});
			}
			if (individual.email) expect(individual.email).toMatch(/^[a-z.]+\d*@[a-z.]+$/);
		}
		expect(firm.name).toBe('Harwood & Finch LLP');
		const mlro = firm.staff.find((member: { id: string }) => member.id === firm.mlroStaffId);
		expect(mlro).toMatchObject({ isPartner: true, isReviewer: true });
	});

	it('gives the main firm the clients asked for and the other firm a few of its own', async () => {
		const sandbox = await start({ clients: 23 });
		expect((await apiClient(sandbox).get('/clients')).body.meta.total).toBe(23);
		expect(
			(await apiClient(sandbox, sandbox.otherFirm.apiKey).get('/clients')).body.meta.total,
		).toBe(5);
		const empty = await start({});
		expect((await apiClient(empty).get('/clients')).body.meta.total).toBe(0);
	});
});
