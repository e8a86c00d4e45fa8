import type { LoggedRequest } from 'compliance-records-sandbox';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startSandbox } from 'compliance-records-sandbox';

import {
	connectOAuth2,
	credentialsFor,
	runNode,
	savedWorkflow,
	type CredentialStore,
} from '../../../../../helpers';
import { forwardingProxy, type ProxyAnswer } from '../../../../../helpers/forwardingProxy';
import { expectReceived, serviceSaid, useSandbox } from '../../../../../helpers/sandbox';
import { listAll, serviceCall, serviceGet, SETUP_HEADER } from '../../../../../helpers/serviceApi';

// 450 clients: one listing of the firm is three pages of 200 (the last one short) all through this file.
const { sandbox, credentials } = useSandbox({ clients: 450 });

interface RunOptions {
	input?: IDataObject[];
	store?: CredentialStore;
	typeVersion?: number;
}

/** Client > Create or Update for an individual, "Ada Lovelace", status EXISTING unless given. */
const upsert = (
	parameters: INodeParameters,
	{ input, store = credentials(), typeVersion }: RunOptions = {},
) =>
	runNode({
		credentials: store,
		typeVersion,
		input,
		parameters: {
			resource: 'client',
			operation: 'upsert',
			status: 'EXISTING',
			entityType: 'individual',
			firstName: 'Ada',
			lastName: 'Lovelace',
			...parameters,
		},
	});

/** The requests the node sent, in the order the service received them (the tests' own left out). */
const sentByNode = (): LoggedRequest[] =>
	sandbox()
		.requests()
		.filter((request) => request.headers[SETUP_HEADER] === undefined);

/** A request in a few words: method, path, which page of a listing, and the status answered. */
function summary({ method, path, query, status }: LoggedRequest): string {
	const page =
		method !== 'GET' || path !== '/clients'
			? ''
			: query.cursor
				? ' next page'
				: query.sinceModifiedAt
					? ' changed since'
					: ' first page';
	return `${method} ${path}${page} ${status}`;
}

const sent = () => sentByNode().map(summary);

/** One listing of the whole firm (450 clients and the few this file adds): three pages. */
const LISTING = [
	'GET /clients first page 200',
	'GET /clients next page 200',
	'GET /clients next page 200',
];

const stored = async (id: string) =>
	(await serviceGet<{ data: IDataObject }>(sandbox(), `/clients/${id}`)).data;

let nextNumber = 0;
/** A reference number no client has (seeded ones are `HF-` and six digits). */
const newReference = () => `UPSERT-${++nextNumber}`;

/**
 * Seeded clients holding a reference number (in `state` if given), each used by one test only
 * (tests change them); `from` picks a position in the list (creation order), hence a page of the listing.
 */
const taken = new Set<string>();
async function clientsWithReference(
	count: number,
	from = 0,
	state?: string,
): Promise<Array<{ id: string; referenceNumber: string; name: string; state: string }>> {
	const clients = (await listAll(sandbox()))
		.slice(from)
		.filter(
			(client) =>
				client.referenceNumber &&
				!taken.has(client.id as string) &&
				(state === undefined || client.state === state),
		);
	const chosen = clients.slice(0, count).map((client) => ({
		id: client.id as string,
		referenceNumber: client.referenceNumber as string,
		name: client.name as string,
		state: client.state as string,
	}));
	chosen.forEach((client) => taken.add(client.id));
	sandbox().clearRequests();
	return chosen;
}

/** What the firm's users do in the service while the node runs, or between executions. */
const setReference = (id: string, referenceNumber: string | null) =>
	serviceCall(sandbox(), 'PATCH', `/clients/${id}`, { referenceNumber });

/** A proxy in front of the sandbox that runs `before` ahead of forwarding each request of the node. */
async function withProxy(before: (method: string, url: URL) => Promise<ProxyAnswer | void>) {
	const proxy = await forwardingProxy(sandbox().baseUrl, {
		before: async ({ method, url }) => await before(method, url),
	});
	const apiPath = new URL(sandbox().baseUrl).pathname.replace(/\/$/, '');
	return {
		store: credentialsFor({ ...sandbox(), baseUrl: `${proxy.origin}${apiPath}` }),
		close: proxy.close,
	};
}

describe('Client > Create or Update', () => {
	it('creates the client when no client has the reference number: one request', async () => {
		const referenceNumber = newReference();

		const run = await upsert({ referenceNumber, individualFields: { email: 'ada@example.com' } });

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 201']);
		expectReceived(sentByNode()[0], {
			method: 'POST',
			path: '/clients',
			bearer: sandbox().apiKey,
			body: {
				status: 'EXISTING',
				referenceNumber,
				entity: {
					object: 'individual',
					firstName: 'Ada',
					lastName: 'Lovelace',
					email: 'ada@example.com',
				},
			},
		});
		expect(run.json).toEqual([await stored(run.json[0].id as string)]);
		expect(run.json[0]).toMatchObject({ referenceNumber, name: 'Ada Lovelace', state: 'EXISTING' });
	});

	it('updates the client that has the reference number: the fields given, never its entity, nor its status unless asked', async () => {
		const [client] = await clientsWithReference(1);

		const run = await upsert({
			referenceNumber: client.referenceNumber,
			status: 'PROSPECT',
			individualFields: { email: 'ada@example.com' },
			additionalFields: { nextReviewDate: '2027-05-31' },
		});

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${client.id} 200`]);
		expectReceived(sentByNode().at(-1), {
			method: 'PATCH',
			path: `/clients/${client.id}`,
			bearer: sandbox().apiKey,
			body: { referenceNumber: client.referenceNumber, nextReviewDate: '2027-05-31' },
		});
		expect(sentByNode()[1].query).toEqual({ limit: '200' });
		expect(run.json).toEqual([await stored(client.id)]);
		// The entity fields and the status made the new client that was refused; the existing one keeps its own.
		expect(run.json[0]).toMatchObject({
			id: client.id,
			name: client.name,
			state: client.state,
			nextReviewDate: '2027-05-31',
		});
	});

	it('at its defaults changes no field of an existing client the user did not set: status, partner, manager, services, review date', async () => {
		const [client] = await clientsWithReference(1);
		const firm = (
			await serviceGet<{
				data: { staff: IDataObject[]; services: IDataObject[]; businessUnits: IDataObject[] };
			}>(sandbox(), '/firm')
		).data;
		const before = (
			await serviceCall(sandbox(), 'PATCH', `/clients/${client.id}`, {
				status: 'EXISTING',
				partnerId: firm.staff.find((member) => member.isPartner)?.id as string,
				managerId: firm.staff.find((member) => member.isManager)?.id as string,
				businessUnitId: firm.businessUnits[0].id as string,
				serviceIds: [firm.services[0].id as string, firm.services[1].id as string],
				nextReviewDate: '2027-09-30',
			})
		).data as IDataObject;
		sandbox().clearRequests();

		// A CRM sync: the reference number and the new client's fields mapped, the rest left at
		// the defaults, Services added but left empty, a partner and a date the CRM has no value for.
		const run = await upsert(
			{
				referenceNumber: client.referenceNumber,
				status: 'PROSPECT',
				additionalFields: {
					serviceIds: [],
					partnerId: '={{ null }}',
					managerId: '',
					nextReviewDate: '={{ $json.review }}',
				},
			},
			{ typeVersion: 2, input: [{ review: null }] },
		);

		expect(run.error).toBeUndefined();
		expect(sentByNode().at(-1)?.body).toEqual({ referenceNumber: client.referenceNumber });
		const after = await stored(client.id);
		for (const field of [
			'state',
			'partner',
			'manager',
			'businessUnit',
			'services',
			'nextReviewDate',
		])
			expect(after[field]).toEqual(before[field]);
	});

	it("with 'Update Status' on, sets the status of the client that has the number too", async () => {
		const [client] = await clientsWithReference(1, 0, 'EXISTING');

		const run = await upsert({
			referenceNumber: client.referenceNumber,
			status: 'PROSPECT',
			updateStatus: true,
		});

		expect(run.error).toBeUndefined();
		expect(sentByNode().at(-1)?.body).toEqual({
			status: 'PROSPECT',
			referenceNumber: client.referenceNumber,
		});
		expect(run.json[0]).toMatchObject({ id: client.id, state: 'PROSPECT' });
	});

	it('a batch of new and existing reference numbers lists the firm once for the whole batch', async () => {
		const existing = await clientsWithReference(3);
		const fresh = [newReference(), newReference(), newReference()];
		const references = [fresh[0], existing[0], existing[1], fresh[1], existing[2], fresh[2]].map(
			(entry) => (typeof entry === 'string' ? entry : entry.referenceNumber),
		);

		const run = await upsert(
			{ referenceNumber: '={{ $json.reference }}', lastName: '={{ $json.lastName }}' },
			{ input: references.map((reference, index) => ({ reference, lastName: `Batch ${index}` })) },
		);

		expect(run.error).toBeUndefined();
		expect(run.json.map((client) => client.referenceNumber)).toEqual(references);
		expect(run.json.map((client) => client.name)).toEqual([
			'Ada Batch 0',
			existing[0].name,
			existing[1].name,
			'Ada Batch 3',
			existing[2].name,
			'Ada Batch 5',
		]);
		const received = sent();
		expect(received.filter((request) => request.startsWith('POST')).sort()).toEqual([
			...Array(3).fill('POST /clients 201'),
			...Array(3).fill('POST /clients 409'),
		]);
		expect(received.filter((request) => request.startsWith('GET'))).toEqual(LISTING);
		expect(received.filter((request) => request.startsWith('PATCH')).sort()).toEqual(
			existing.map((client) => `PATCH /clients/${client.id} 200`).sort(),
		);
		expect(received).toHaveLength(12);
	});

	it('two items with the same new reference number: the first creates the client, the second updates it', async () => {
		const referenceNumber = newReference();

		const run = await upsert(
			{ referenceNumber, status: '={{ $json.status }}', updateStatus: true },
			{ input: [{ status: 'PROSPECT' }, { status: 'EXISTING' }] },
		);

		expect(run.error).toBeUndefined();
		expect(run.json[1].id).toBe(run.json[0].id);
		expect(run.json[1]).toMatchObject({ referenceNumber, state: 'EXISTING' });
		expect(sent()).toEqual([
			'POST /clients 201',
			'POST /clients 409',
			...LISTING,
			`PATCH /clients/${run.json[0].id} 200`,
		]);
	});

	it("outputs Simplify's record in the version new nodes get (2), updated or created", async () => {
		const [client] = await clientsWithReference(1);
		const referenceNumber = newReference();

		const run = await upsert(
			{ referenceNumber: '={{ $json.reference }}', simplify: true },
			{
				typeVersion: 2,
				input: [{ reference: client.referenceNumber }, { reference: referenceNumber }],
			},
		);

		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([
			expect.objectContaining({
				id: client.id,
				name: client.name,
				status: client.state,
				referenceNumber: client.referenceNumber,
			}),
			expect.objectContaining({ name: 'Ada Lovelace', status: 'EXISTING', referenceNumber }),
		]);
		for (const output of run.json) expect(Object.keys(output).length).toBeLessThanOrEqual(10);
	});

	it('a number that moved to another client after the listing read it: updates the client that has it now', async () => {
		const [previous, current] = await clientsWithReference(2);
		const referenceNumber = previous.referenceNumber;
		let moved = false;
		const proxy = await withProxy(async (method) => {
			if (method === 'PATCH' && !moved) {
				moved = true;
				await setReference(previous.id, newReference());
				await setReference(current.id, referenceNumber);
			}
		});
		try {
			const run = await upsert(
				{ referenceNumber, additionalFields: { nextReviewDate: '2027-08-31' } },
				{ store: proxy.store },
			);

			expect(run.error).toBeUndefined();
			expect(sent()).toEqual([
				'POST /clients 409',
				...LISTING,
				`PATCH /clients/${previous.id} 409`,
				'GET /clients changed since 200',
				`PATCH /clients/${current.id} 200`,
			]);
			expect(run.json[0]).toMatchObject({
				id: current.id,
				referenceNumber,
				nextReviewDate: '2027-08-31',
			});
			expect((await stored(previous.id)).nextReviewDate).not.toBe('2027-08-31');
			// Only what changed since the listing was listed again: the two clients the firm changed.
			const changedSince = sentByNode().find((request) => request.query.sinceModifiedAt)!;
			const { data } = await serviceGet<{ data: IDataObject[] }>(
				sandbox(),
				`/clients?sinceModifiedAt=${encodeURIComponent(changedSince.query.sinceModifiedAt as string)}&limit=200`,
			);
			expect(data.map((client) => client.id)).toEqual(
				expect.arrayContaining([previous.id, current.id]),
			);
			expect(data.length).toBeLessThan(20);
		} finally {
			await proxy.close();
		}
	});

	it('a number given to a client the listing had already read: found by listing what changed since', async () => {
		const [early] = await clientsWithReference(1, 0);
		const [late] = await clientsWithReference(1, 250);
		const referenceNumber = late.referenceNumber;
		let pagesAfterFirst = 0;
		const proxy = await withProxy(async (method, url) => {
			// Between the listing's first page (which has `early`) and the page that has `late`.
			if (method === 'GET' && url.searchParams.has('cursor') && ++pagesAfterFirst === 1) {
				await setReference(late.id, null);
				await setReference(early.id, referenceNumber);
			}
		});
		try {
			const run = await upsert(
				{ referenceNumber, status: 'PROSPECT', updateStatus: true },
				{ store: proxy.store },
			);

			expect(run.error).toBeUndefined();
			expect(sent()).toEqual([
				'POST /clients 409',
				...LISTING,
				'GET /clients changed since 200',
				`PATCH /clients/${early.id} 200`,
			]);
			expect(run.json[0]).toMatchObject({ id: early.id, referenceNumber, state: 'PROSPECT' });
		} finally {
			await proxy.close();
		}
	});

	it('a number that keeps changing hands while the node runs: no client is updated, and the user is told', async () => {
		const [first, second, third] = await clientsWithReference(3);
		const referenceNumber = first.referenceNumber;
		const holders = [first, second, third];
		let patches = 0;
		const proxy = await withProxy(async (method) => {
			// Before each of the node's updates, the number moves on to the next client.
			if (method === 'PATCH' && patches < 2) {
				const [from, to] = [holders[patches], holders[patches + 1]];
				patches++;
				await setReference(from.id, newReference());
				await setReference(to.id, referenceNumber);
			}
		});
		const before = await Promise.all(holders.map((client) => stored(client.id)));
		try {
			const run = await upsert(
				{ referenceNumber, status: 'PROSPECT', additionalFields: { nextReviewDate: '2027-09-30' } },
				{ store: proxy.store },
			);

			expect(run.error?.message).toBe(
				`'Reference Number' "${referenceNumber}" changed hands while the node ran, so no client was updated [item 0]`,
			);
			expect(sent()).toEqual([
				'POST /clients 409',
				...LISTING,
				`PATCH /clients/${first.id} 409`,
				'GET /clients changed since 200',
				`PATCH /clients/${second.id} 409`,
			]);
			const after = await Promise.all(holders.map((client) => stored(client.id)));
			after.forEach((client, index) => {
				expect(client.state).toBe(before[index].state);
				expect(client.nextReviewDate).toBe(before[index].nextReviewDate);
			});
		} finally {
			await proxy.close();
		}
	});

	it('works the same with OAuth2, where n8n throws the conflict instead of answering it', async () => {
		const [client] = await clientsWithReference(1);
		const store = credentials();
		await connectOAuth2(store);
		const token = (store.stored('complianceRecordsOAuth2Api').oauthTokenData as IDataObject)
			.access_token as string;
		sandbox().clearRequests();

		const run = await upsert(
			{
				referenceNumber: client.referenceNumber,
				authentication: 'oAuth2',
				status: 'PROSPECT',
				updateStatus: true,
			},
			{ store },
		);

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${client.id} 200`]);
		expectReceived(sentByNode().at(-1), {
			method: 'PATCH',
			path: `/clients/${client.id}`,
			bearer: token,
			body: { status: 'PROSPECT', referenceNumber: client.referenceNumber },
		});
		expect(run.json[0]).toMatchObject({ id: client.id, state: 'PROSPECT' });
	});

	it("a refused create shows the service's words, and nothing else is sent", async () => {
		const run = await upsert({
			referenceNumber: newReference(),
			entityType: 'import_uk_company',
			companyNumber: '99999999',
		});

		expect(run.error?.message).toBe('The service refused the request [item 0]');
		expect(run.error?.description).toContain(serviceSaid(sandbox()));
		expect(sent()).toEqual(['POST /clients 400']);
	});

	it('a failure while listing the firm is explained once', async () => {
		const [client] = await clientsWithReference(1);
		const proxy = await withProxy(async (method, url) => {
			const listingGoesOn = method === 'GET' && url.searchParams.has('cursor');
			return listingGoesOn ? { status: 500, body: { message: 'Database unavailable' } } : undefined;
		});
		try {
			const run = await upsert({ referenceNumber: client.referenceNumber }, { store: proxy.store });

			expect(run.error?.message).toBe(
				'The service could not complete the request (HTTP 500) [item 0]',
			);
			expect(run.error?.description).toMatch(/^The service said: Database unavailable\. /);
			expect(sent()).toEqual(['POST /clients 409', 'GET /clients first page 200']);
		} finally {
			await proxy.close();
		}
	});

	it("with Continue On Fail, each item's failure is its own, and the other items go on", async () => {
		const [client] = await clientsWithReference(1);

		const run = await runNode({
			credentials: credentials(),
			continueOnFail: true,
			input: [{ companyNumber: '12345678' }, { companyNumber: '99999999' }],
			parameters: {
				resource: 'client',
				operation: 'upsert',
				referenceNumber: `={{ $itemIndex === 0 ? "${client.referenceNumber}" : "${newReference()}" }}`,
				status: 'EXISTING',
				entityType: 'import_uk_company',
				companyNumber: '={{ $json.companyNumber }}',
			},
		});

		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ id: client.id, name: client.name, state: client.state });
		expect(run.json[1].error).toBe('The service refused the request [item 1]');
	});

	it('refuses a blank reference number before sending anything', async () => {
		const run = await upsert({ referenceNumber: '={{ "  " }}' });

		expect(run.error?.message).toBe("'Reference Number' is empty [item 0]");
		expect(sentByNode()).toEqual([]);
	});
});

describe('Client > Create or Update, from one production execution to the next', () => {
	/** The node in a saved workflow, run by a webhook: Reference Number, status and review date from each item. */
	const deployed = (store = credentials(), parameters: INodeParameters = {}) =>
		savedWorkflow({
			credentials: store,
			typeVersion: 2,
			parameters: {
				resource: 'client',
				operation: 'upsert',
				referenceNumber: '={{ $json.reference }}',
				status: '={{ $json.status ?? "EXISTING" }}',
				updateStatus: true,
				entityType: 'individual',
				firstName: 'Ada',
				lastName: 'Lovelace',
				additionalFields: { nextReviewDate: '={{ $json.review ?? "2027-01-31" }}' },
				...parameters,
			},
		});
	const itemsFor = (...references: string[]) => references.map((reference) => ({ reference }));

	/** A first production execution that updates these clients, today's way: the firm listed once. */
	async function learned(
		workflow: ReturnType<typeof deployed>,
		clients: Array<{ id: string; referenceNumber: string }>,
	) {
		const run = await workflow.run({
			input: itemsFor(...clients.map((client) => client.referenceNumber)),
		});
		expect(run.error).toBeUndefined();
		expect(sent().filter((request) => request.startsWith('GET'))).toEqual(LISTING);
		sandbox().clearRequests();
	}

	it('from the second execution, a known reference costs the changes since and the update: two requests', async () => {
		const [client] = await clientsWithReference(1);
		const workflow = deployed();
		await learned(workflow, [client]);

		const runs = [];
		for (const [status, review] of [
			['PROSPECT', '2027-02-28'],
			['EXISTING', '2027-03-31'],
		]) {
			const run = await workflow.run({
				input: [{ reference: client.referenceNumber, status, review }],
			});
			runs.push(run);

			expect(run.error).toBeUndefined();
			expect(sent()).toEqual(['GET /clients changed since 200', `PATCH /clients/${client.id} 200`]);
			expectReceived(sentByNode()[1], {
				method: 'PATCH',
				path: `/clients/${client.id}`,
				bearer: sandbox().apiKey,
				body: { status, referenceNumber: client.referenceNumber, nextReviewDate: review },
			});
			expect(run.json[0]).toMatchObject({
				id: client.id,
				name: client.name,
				status,
				nextReviewDate: review,
			});
			sandbox().clearRequests();
		}
		// Nothing new learned (the same client, a watermark a few seconds on): n8n has nothing to save.
		expect(runs[1].changedStaticData).toBeUndefined();
	});

	it('a batch of known references costs one listing of changes and their updates; a new one stays one request', async () => {
		const clients = await clientsWithReference(5);
		const workflow = deployed();
		await learned(workflow, clients);
		const fresh = newReference();

		const run = await workflow.run({
			input: itemsFor(...clients.map((client) => client.referenceNumber), fresh),
		});

		expect(run.error).toBeUndefined();
		expect(run.json.map((client) => client.id).slice(0, 5)).toEqual(
			clients.map((client) => client.id),
		);
		expect(run.json[5]).toMatchObject({ referenceNumber: fresh, name: 'Ada Lovelace' });
		expect(sent().sort()).toEqual(
			[
				'GET /clients changed since 200',
				'POST /clients 201',
				...clients.map((client) => `PATCH /clients/${client.id} 200`),
			].sort(),
		);
	});

	it('keeps no reference number or name in clear, and stays small', async () => {
		const clients = await clientsWithReference(3);
		const workflow = deployed();
		await learned(workflow, clients);

		const saved = JSON.stringify(workflow.saved());
		const firm = await listAll(sandbox());
		for (const client of firm) {
			if (client.referenceNumber) expect(saved).not.toContain(client.referenceNumber as string);
			expect(saved).not.toContain(client.name as string);
		}
		// Its client IDs, and keyed hashes of the reference numbers: the whole firm fits here.
		for (const client of clients) expect(saved).toContain(client.id);
		expect(saved.length).toBeLessThan(100_000);
	});

	it('a reference moved to another client between executions: the client that has it now is updated', async () => {
		const [previous, current] = await clientsWithReference(2);
		const referenceNumber = previous.referenceNumber;
		const workflow = deployed();
		await learned(workflow, [previous]);
		await setReference(previous.id, newReference());
		await setReference(current.id, referenceNumber);
		const before = await stored(previous.id);

		const run = await workflow.run({
			input: [{ reference: referenceNumber, review: '2027-04-30' }],
		});

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['GET /clients changed since 200', `PATCH /clients/${current.id} 200`]);
		expect(run.json[0]).toMatchObject({
			id: current.id,
			referenceNumber,
			nextReviewDate: '2027-04-30',
		});
		expect(await stored(previous.id)).toEqual(before);
	});

	it('a reference given up and held by no one: a client is created, and the old holder is untouched', async () => {
		const [client] = await clientsWithReference(1);
		const workflow = deployed();
		await learned(workflow, [client]);
		await setReference(client.id, null);
		const before = await stored(client.id);

		const run = await workflow.run({
			input: [{ reference: client.referenceNumber, review: '2027-05-31' }],
		});

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['GET /clients changed since 200', 'POST /clients 201']);
		expect(run.json[0]).toMatchObject({
			referenceNumber: client.referenceNumber,
			name: 'Ada Lovelace',
		});
		expect(run.json[0].id).not.toBe(client.id);
		expect(await stored(client.id)).toEqual(before);
	});

	it('an older save written back (a polling trigger, executions at once): the changes since it set it right', async () => {
		const [first, second] = await clientsWithReference(2);
		const referenceNumber = first.referenceNumber;
		const workflow = deployed();
		await learned(workflow, [first]);
		const older = workflow.saved();
		await setReference(first.id, newReference());
		await setReference(second.id, referenceNumber);
		await workflow.run({ input: itemsFor(referenceNumber) });
		workflow.overwrite(older);
		sandbox().clearRequests();
		const before = await stored(first.id);

		const run = await workflow.run({
			input: [{ reference: referenceNumber, review: '2027-06-30' }],
		});

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['GET /clients changed since 200', `PATCH /clients/${second.id} 200`]);
		expect(run.json[0]).toMatchObject({ id: second.id, nextReviewDate: '2027-06-30' });
		expect(await stored(first.id)).toEqual(before);
	});

	it('a reference taken from its client after the check: the update is refused, and the client that has it is updated', async () => {
		const [previous, current] = await clientsWithReference(2);
		const referenceNumber = previous.referenceNumber;
		let armed = false;
		const proxy = await withProxy(async (method) => {
			if (method === 'PATCH' && armed) {
				armed = false;
				await setReference(previous.id, newReference());
				await setReference(current.id, referenceNumber);
			}
		});
		try {
			const workflow = deployed(proxy.store);
			await learned(workflow, [previous]);
			const before = await stored(previous.id);
			armed = true;

			const run = await workflow.run({
				input: [{ reference: referenceNumber, review: '2027-08-31' }],
			});

			expect(run.error).toBeUndefined();
			expect(sent()).toEqual([
				'GET /clients changed since 200',
				`PATCH /clients/${previous.id} 409`,
				'POST /clients 409',
				...LISTING,
				`PATCH /clients/${current.id} 200`,
			]);
			expect(run.json[0]).toMatchObject({ id: current.id, nextReviewDate: '2027-08-31' });
			// Only the firm's own change reached it: the number it was given instead.
			expect(await stored(previous.id)).toEqual({
				...before,
				referenceNumber: expect.any(String),
				lastModifiedAt: expect.any(String),
				updatedAt: expect.any(String),
			});
		} finally {
			await proxy.close();
		}
	});

	it("items spaced by n8n's batching each check the changes again before their update", async () => {
		const clients = await clientsWithReference(2);
		const unbatched = deployed();
		await learned(unbatched, clients);
		const workflow = deployed(credentials(), {
			requestOptions: { batching: { batch: { batchSize: 1, batchInterval: 1_200 } } },
		});
		workflow.overwrite(unbatched.saved());

		const run = await workflow.run({
			input: itemsFor(...clients.map((client) => client.referenceNumber)),
		});

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(
			clients.flatMap((client) => [
				'GET /clients changed since 200',
				`PATCH /clients/${client.id} 200`,
			]),
		);
	});

	it('saved data that points at the wrong client is ignored: the client that has the number is updated', async () => {
		const [holder, other] = await clientsWithReference(2);
		const workflow = deployed();
		await learned(workflow, [holder, other]);
		// Each entry is a 12-character key and a client ID: give the holder's key the other client.
		const index = workflow.saved().referenceIndex as { clients: string[] };
		const swapped = index.clients.map((entry) =>
			entry.endsWith(holder.id)
				? entry.replace(holder.id, other.id)
				: entry.replace(other.id, holder.id),
		);
		workflow.overwrite({ referenceIndex: { ...index, clients: swapped } });
		const before = await stored(other.id);

		const run = await workflow.run({
			input: [{ reference: holder.referenceNumber, review: '2027-07-31' }],
		});

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${holder.id} 200`]);
		expect(run.json[0]).toMatchObject({ id: holder.id, nextReviewDate: '2027-07-31' });
		expect(await stored(other.id)).toEqual(before);
	});

	it('saved data of another credential or firm is ignored', async () => {
		const [client] = await clientsWithReference(1);
		const workflow = deployed();
		await learned(workflow, [client]);
		const saved = workflow.saved();

		const otherKey = credentialsFor({
			...sandbox(),
			apiKey: sandbox().createApiKey({ name: 'Another integration' }),
		});
		const withOtherKey = deployed(otherKey);
		withOtherKey.overwrite(saved);
		expect((await withOtherKey.run({ input: itemsFor(client.referenceNumber) })).json[0].id).toBe(
			client.id,
		);
		expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${client.id} 200`]);
		sandbox().clearRequests();

		const otherFirm = deployed(
			credentialsFor({ ...sandbox(), apiKey: sandbox().otherFirm.apiKey }),
		);
		otherFirm.overwrite(saved);
		const run = await otherFirm.run({ input: itemsFor(client.referenceNumber) });
		expect(run.json[0].id).not.toBe(client.id);
		expect(sent()).toEqual(['POST /clients 201']);
	});

	it.each([
		['not an index', 'x'],
		['another format', { format: 2 }],
		['an edited character', 'edit'],
		['no seal', 'unsealed'],
	])(
		'corrupt saved data (%s) is ignored, then replaced by a sound index',
		async (_, corruption) => {
			const [client] = await clientsWithReference(1);
			const workflow = deployed();
			await learned(workflow, [client]);
			const index = workflow.saved().referenceIndex as { clients: string[]; mac: string };
			const corrupt =
				corruption === 'edit'
					? {
							...index,
							clients: index.clients.map((entry) =>
								entry.replace(/^./, (first) => (first === 'A' ? 'B' : 'A')),
							),
						}
					: corruption === 'unsealed'
						? { ...index, mac: undefined }
						: corruption;
			workflow.overwrite({ referenceIndex: corrupt });

			const run = await workflow.run({ input: itemsFor(client.referenceNumber) });

			expect(run.error).toBeUndefined();
			expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${client.id} 200`]);
			sandbox().clearRequests();
			await workflow.run({ input: itemsFor(client.referenceNumber) });
			expect(sent()).toEqual(['GET /clients changed since 200', `PATCH /clients/${client.id} 200`]);
		},
	);

	it('a manual execution, from the editor, goes the way it always did and leaves the saved index alone', async () => {
		const [client] = await clientsWithReference(1);
		const workflow = deployed();
		await learned(workflow, [client]);
		const saved = workflow.saved();

		const run = await workflow.run({ mode: 'manual', input: itemsFor(client.referenceNumber) });

		expect(run.error).toBeUndefined();
		expect(run.changedStaticData).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${client.id} 200`]);
		expect(workflow.saved()).toEqual(saved);
	});

	it('with OAuth2, the index outlives the token: a reconnected credential keeps it', async () => {
		const [client] = await clientsWithReference(1);
		const store = credentials();
		await connectOAuth2(store);
		const workflow = deployed(store, { authentication: 'oAuth2' });
		await learned(workflow, [client]);
		await connectOAuth2(store);
		sandbox().clearRequests();

		const run = await workflow.run({ input: itemsFor(client.referenceNumber) });

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['GET /clients changed since 200', `PATCH /clients/${client.id} 200`]);
	});

	it('stays under 100 KB on a firm too large to keep whole, the references asked for kept first', async () => {
		const large = await startSandbox({ clients: 3_000 });
		try {
			const firm = await listAll(large);
			const asked = firm.filter((client) => client.referenceNumber).slice(0, 2);
			const workflow = deployed(credentialsFor(large));
			await workflow.run({ input: itemsFor(asked[0].referenceNumber as string) });
			await workflow.run({ input: itemsFor(asked[1].referenceNumber as string) });

			const saved = JSON.stringify(workflow.saved());
			expect(saved.length).toBeLessThan(100_000);
			// The index holds fewer clients than the firm's 2,400 or so reference numbers.
			expect(
				(workflow.saved().referenceIndex as { clients: string[] }).clients.length,
			).toBeLessThan(firm.filter((client) => client.referenceNumber).length);
			large.clearRequests();
			const run = await workflow.run({
				input: itemsFor(...asked.map((client) => client.referenceNumber as string)),
			});
			expect(run.json.map((client) => client.id)).toEqual(asked.map((client) => client.id));
			expect(
				large
					.requests()
					.map(({ method, path }) => `${method} ${path}`)
					.sort(),
			).toEqual(['GET /clients', ...asked.map((client) => `PATCH /clients/${client.id}`)].sort());
		} finally {
			await large.close();
		}
	});
	it("an execution of a workflow n8n does not see as published (n8n execute, n8n 2.40's queue-mode workers) neither reads nor writes the index", async () => {
		const [client] = await clientsWithReference(1);
		const workflow = deployed();
		await learned(workflow, [client]);

		const run = await workflow.run({ active: false, input: itemsFor(client.referenceNumber) });

		expect(run.error).toBeUndefined();
		expect(run.changedStaticData).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${client.id} 200`]);
	});

	it('after many changes in the firm, one item reads its client instead of every change: three requests at most', async () => {
		const [client, ...batch] = await clientsWithReference(4);
		const workflow = deployed();
		await learned(workflow, [client, ...batch]);
		// More than two pages of changes (400 and more) since the last execution.
		const others = (await listAll(sandbox())).filter(
			(other) => ![client, ...batch].some((known) => known.id === other.id),
		);
		for (const other of others.slice(0, 401))
			await serviceCall(sandbox(), 'PATCH', `/clients/${other.id}`, {
				nextReviewDate: '2030-01-31',
			});
		sandbox().clearRequests();

		const one = await workflow.run({ input: itemsFor(client.referenceNumber) });

		expect(one.error).toBeUndefined();
		expect(sent()).toEqual([
			'GET /clients changed since 200',
			`GET /clients/${client.id} 200`,
			`PATCH /clients/${client.id} 200`,
		]);
		sandbox().clearRequests();

		// Three items waiting: the two pages left of the changes cost less than three reads.
		const three = await workflow.run({
			input: itemsFor(...batch.map((known) => known.referenceNumber)),
		});

		expect(three.json.map((updated) => updated.id)).toEqual(batch.map((known) => known.id));
		expect(sent().sort()).toEqual(
			[
				'GET /clients changed since 200',
				'GET /clients next page 200',
				'GET /clients next page 200',
				...batch.map((known) => `PATCH /clients/${known.id} 200`),
			].sort(),
		);
	});
});
