/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
import { setTimeout as sleep } from 'node:timers/promises';

import type { LoggedRequest, Sandbox } from 'compliance-records-sandbox';
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
import {
	firmOf,
	listAll,
	serviceCall,
	serviceGet,
	SETUP_HEADER,
} from '../../../../../helpers/serviceApi';

// 450 clients: one listing of the firm is three pages of 200 (the last one short) all through this file.
const { sandbox, credentials, credentialsWithNewKey } = useSandbox({ clients: 450 });

/** The sandbox's firm through an API key of its own: the process keeps an index per firm and credential. */

const apiKeyOf = (store: CredentialStore) => store.stored('complianceRecordsApi').apiKey as string;

interface RunOptions {
	input?: IDataObject[];
	store?: CredentialStore;
	typeVersion?: number;
}

/** Client > Create or Update for an individual, "Ada Lovelace", status EXISTING unless given. */
const upsert = (
	parameters: INodeParameters,
	{ input, store = credentialsWithNewKey(), typeVersion }: RunOptions = {},
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
		const store = credentialsWithNewKey();

		const run = await upsert(
			{ referenceNumber, individualFields: { email: 'ada@example.com' } },
			{ store },
		);

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 201']);
		expectReceived(sentByNode()[0], {
			method: 'POST',
			path: '/clients',
			bearer: apiKeyOf(store),
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
		const store = credentialsWithNewKey();

		const run = await upsert(
			{
				referenceNumber: client.referenceNumber,
				status: 'PROSPECT',
				individualFields: { email: 'ada@example.com' },
				additionalFields: { nextReviewDate: '2027-05-31' },
			},
			{ store },
		);

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${client.id} 200`]);
		expectReceived(sentByNode().at(-1), {
			method: 'PATCH',
			path: `/clients/${client.id}`,
			bearer: apiKeyOf(store),
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
		const firm = await firmOf(sandbox());
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
			credentials: credentialsWithNewKey(),
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

describe('Client > Create or Update, from one execution to the next on the same n8n process', () => {
	/** The node in a published webhook workflow, on a credential of its own; `staticData`: the other nodes'. */
	const deployed = (
		store = credentialsWithNewKey(),
		parameters: INodeParameters = {},
		staticData: IDataObject = {},
	) =>
		savedWorkflow(
			{
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
			},
			staticData,
		);
	const itemsFor = (...references: string[]) => references.map((reference) => ({ reference }));
	/** An execution as a queue-mode worker of n8n 2.40 runs it: the workflow unpublished, its static data not loaded. */
	const ON_A_WORKER = { active: false, staticDataLoaded: false };

	/** A first execution that updates these clients: the firm listed once. */
	async function learned(
		workflow: ReturnType<typeof deployed>,
		clients: Array<{ id: string; referenceNumber: string }>,
	) {
		const run = await workflow.run({
			...ON_A_WORKER,
			input: itemsFor(...clients.map((client) => client.referenceNumber)),
		});
		expect(run.error).toBeUndefined();
		expect(sent().filter((request) => request.startsWith('GET'))).toEqual(LISTING);
		sandbox().clearRequests();
	}

	it.each([
		['on a queue-mode worker (the workflow unpublished, no static data)', ON_A_WORKER],
		['on a main in regular mode (the workflow published, its static data loaded)', {}],
	])(
		'%s, from the second execution a known reference costs the changes since and the update, and nothing is written in the workflow',
		async (_, execution) => {
			const [client] = await clientsWithReference(1);
			const workflow = deployed();

			const first = await workflow.run({ ...execution, input: itemsFor(client.referenceNumber) });

			expect(first.error).toBeUndefined();
			expect(sent()).toEqual(['POST /clients 409', ...LISTING, `PATCH /clients/${client.id} 200`]);
			sandbox().clearRequests();
			const run = await workflow.run({
				...execution,
				input: [{ reference: client.referenceNumber, status: 'PROSPECT', review: '2027-02-28' }],
			});

			expect(run.error).toBeUndefined();
			expect(sent()).toEqual(['GET /clients changed since 200', `PATCH /clients/${client.id} 200`]);
			expect(sentByNode()[1].body).toEqual({
				status: 'PROSPECT',
				referenceNumber: client.referenceNumber,
				nextReviewDate: '2027-02-28',
			});
			expect(run.json[0]).toMatchObject({
				id: client.id,
				name: client.name,
				status: 'PROSPECT',
				nextReviewDate: '2027-02-28',
			});
			expect(run.changedStaticData).toBeUndefined();
			expect(first.changedStaticData).toBeUndefined();
			expect(workflow.staticData()).toEqual({});
		},
	);

	it('a new reference stays one request, and the next execution updates that client in two', async () => {
		const referenceNumber = newReference();
		const workflow = deployed();

		const created = await workflow.run({ ...ON_A_WORKER, input: itemsFor(referenceNumber) });
		expect(sent()).toEqual(['POST /clients 201']);
		sandbox().clearRequests();
		const updated = await workflow.run({
			...ON_A_WORKER,
			input: [{ reference: referenceNumber, review: '2027-12-31' }],
		});

		expect(updated.error).toBeUndefined();
		expect(sent()).toEqual([
			'GET /clients changed since 200',
			`PATCH /clients/${created.json[0].id} 200`,
		]);
		expect(updated.json[0]).toMatchObject({
			id: created.json[0].id,
			referenceNumber,
			nextReviewDate: '2027-12-31',
		});
	});

	it('a batch of known references costs one listing of changes and their updates; a new one stays one request', async () => {
		const clients = await clientsWithReference(5);
		const workflow = deployed();
		await learned(workflow, clients);
		const fresh = newReference();

		const run = await workflow.run({
			...ON_A_WORKER,
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

	it('executions at once on one process list the firm once between them', async () => {
		const clients = await clientsWithReference(3);
		const proxy = await withProxy(async (method, url) => {
			// The listing slower than the creates, so that every execution's create is refused before it ends.
			if (method === 'GET' && url.pathname.endsWith('/clients')) await sleep(200);
		});
		try {
			const workflow = deployed(proxy.store);

			const runs = await Promise.all(
				clients.map((client) =>
					workflow.run({ ...ON_A_WORKER, input: itemsFor(client.referenceNumber) }),
				),
			);

			runs.forEach((run, index) => {
				expect(run.error).toBeUndefined();
				expect(run.json[0]).toMatchObject({ id: clients[index].id });
			});
			expect(sent().sort()).toEqual(
				[
					...Array(3).fill('POST /clients 409'),
					...LISTING,
					...clients.map((client) => `PATCH /clients/${client.id} 200`),
				].sort(),
			);
		} finally {
			await proxy.close();
		}
	});

	it("an execution whose listing fails for its own reasons does not fail another's that waited for it", async () => {
		const [first, second] = await clientsWithReference(2);
		let listings = 0;
		const proxy = await withProxy(async (method, url) => {
			// The first listing's first page comes late (never from the service: the test is over by then).
			if (method === 'GET' && url.pathname.endsWith('/clients') && !url.searchParams.has('cursor'))
				if (++listings === 1) {
					await sleep(1_500);
					return { status: 503, body: { message: 'Too late' } };
				}
			return undefined;
		});
		try {
			// The same credential in two workflows: one gives the service 1 s (its 'Timeout'), the other the default 30 s.
			const hurried = deployed(proxy.store, { requestOptions: { timeout: 1_000 } });
			const patient = deployed(proxy.store);

			const [timedOut, done] = await Promise.all([
				hurried.run({ ...ON_A_WORKER, input: itemsFor(first.referenceNumber) }),
				(async () => {
					await sleep(300);
					return await patient.run({ ...ON_A_WORKER, input: itemsFor(second.referenceNumber) });
				})(),
			]);

			expect(timedOut.error?.message).toMatch(/^The service did not answer within 1 s/);
			expect(done.error).toBeUndefined();
			expect(done.json[0]).toMatchObject({
				id: second.id,
				referenceNumber: second.referenceNumber,
			});
		} finally {
			await proxy.close();
		}
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
			...ON_A_WORKER,
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
			...ON_A_WORKER,
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

	it('a reference the index never met, taken by a client since the process listed the firm: the changes since find it', async () => {
		const [known, taker] = await clientsWithReference(2);
		const workflow = deployed();
		await learned(workflow, [known]);
		const referenceNumber = newReference();
		await setReference(taker.id, referenceNumber);

		const run = await workflow.run({
			...ON_A_WORKER,
			input: [{ reference: referenceNumber, review: '2027-06-30' }],
		});

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual([
			'POST /clients 409',
			'GET /clients changed since 200',
			`PATCH /clients/${taker.id} 200`,
		]);
		expect(run.json[0]).toMatchObject({
			id: taker.id,
			referenceNumber,
			nextReviewDate: '2027-06-30',
		});
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
				...ON_A_WORKER,
				input: [{ reference: referenceNumber, review: '2027-08-31' }],
			});

			expect(run.error).toBeUndefined();
			expect(sent()).toEqual([
				'GET /clients changed since 200',
				`PATCH /clients/${previous.id} 409`,
				'POST /clients 409',
				'GET /clients changed since 200',
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

	it('a client created while the firm is listed leaves no change the listing missed unchecked', async () => {
		const [holder, released] = await clientsWithReference(2);
		let firstPageSeen = () => {};
		const firstPage = new Promise<void>((resolve) => (firstPageSeen = resolve));
		let creationAnswered = () => {};
		const created = new Promise<void>((resolve) => (creationAnswered = resolve));
		let posts = 0;
		const proxy = await withProxy(async (method, url) => {
			if (method === 'GET' && url.searchParams.has('cursor')) {
				firstPageSeen();
				await created;
			}
			if (method === 'POST' && ++posts === 2) {
				// After the listing's first page showed it, a client gives up its number, and the
				// other execution's new client comes more than the commit lag (5 s) later.
				await firstPage;
				await setReference(released.id, null);
				await sleep(5_500);
				void sleep(200).then(creationAnswered);
			}
		});
		try {
			const workflow = deployed(proxy.store);
			const listing = workflow.run({ ...ON_A_WORKER, input: itemsFor(holder.referenceNumber) });
			await sleep(100);
			const creation = workflow.run({ ...ON_A_WORKER, input: itemsFor(newReference()) });
			expect((await listing).error).toBeUndefined();
			expect((await creation).error).toBeUndefined();
			sandbox().clearRequests();
			const before = await stored(released.id);

			const run = await workflow.run({
				...ON_A_WORKER,
				input: itemsFor(released.referenceNumber),
			});

			expect(run.error).toBeUndefined();
			expect(run.json[0].id).not.toBe(released.id);
			expect(await stored(released.id)).toEqual(before);
		} finally {
			await proxy.close();
		}
	});

	it('a credential switched to another firm never uses what the process learned of the first', async () => {
		const referenceNumber = newReference();
		const store = credentialsWithNewKey();
		const workflow = deployed(store);
		const created = await workflow.run({ ...ON_A_WORKER, input: itemsFor(referenceNumber) });
		sandbox().clearRequests();

		// The same n8n credential, its API key now another firm's.
		store.set('complianceRecordsApi', {
			...store.stored('complianceRecordsApi'),
			apiKey: sandbox().otherFirm.apiKey,
		});
		const run = await workflow.run({ ...ON_A_WORKER, input: itemsFor(referenceNumber) });

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual(['POST /clients 201']);
		expect(run.json[0].id).not.toBe(created.json[0].id);
	});

	it('with OAuth2 the process keeps the index too, through a reconnection; nothing is written in the workflow', async () => {
		// A service of its own: what the other tests' OAuth2 executions taught the process is not its.
		const service = await startSandbox({ clients: 20 });
		try {
			const [client] = (await listAll(service)).filter((record) => record.referenceNumber);
			const store = credentialsFor(service);
			await connectOAuth2(store);
			service.clearRequests();
			const workflow = deployed(store, { authentication: 'oAuth2' });
			const byNode = () =>
				service.requests().map(({ method, path, status }) => `${method} ${path} ${status}`);
			await workflow.run({ ...ON_A_WORKER, input: itemsFor(client.referenceNumber as string) });
			expect(byNode()).toEqual([
				'POST /clients 409',
				'GET /clients 200',
				`PATCH /clients/${client.id as string} 200`,
			]);
			await connectOAuth2(store);
			service.clearRequests();

			const run = await workflow.run({ input: itemsFor(client.referenceNumber as string) });

			expect(run.error).toBeUndefined();
			expect(byNode()).toEqual(['GET /clients 200', `PATCH /clients/${client.id as string} 200`]);
			expect(service.requests()[0].query.sinceModifiedAt).toEqual(expect.any(String));
			expect(run.changedStaticData).toBeUndefined();
			expect(workflow.staticData()).toEqual({});
		} finally {
			await service.close();
		}
	});

	it("an execution that n8n gives an empty copy of the static data and saves back (resumed after a Wait) leaves another node's state as it was", async () => {
		const [client] = await clientsWithReference(1);
		const triggerState = { 'node:Client created or modified': { lastTimeChecked: 1782300000000 } };
		const workflow = deployed(credentialsWithNewKey(), {}, triggerState);

		for (const staticDataLoaded of [true, false, false]) {
			const run = await workflow.run({
				staticDataLoaded,
				input: itemsFor(client.referenceNumber),
			});
			expect(run.error).toBeUndefined();
			expect(run.changedStaticData).toBeUndefined();
		}
		expect(workflow.staticData()).toEqual(triggerState);
	});

	it("items spaced by n8n's batching each check the changes again before their update", async () => {
		const clients = await clientsWithReference(2);
		const store = credentialsWithNewKey();
		await learned(deployed(store), clients);
		const workflow = deployed(store, {
			requestOptions: { batching: { batch: { batchSize: 1, batchInterval: 1_200 } } },
		});

		const run = await workflow.run({
			...ON_A_WORKER,
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

		const one = await workflow.run({ ...ON_A_WORKER, input: itemsFor(client.referenceNumber) });

		expect(one.error).toBeUndefined();
		expect(sent()).toEqual([
			'GET /clients changed since 200',
			`GET /clients/${client.id} 200`,
			`PATCH /clients/${client.id} 200`,
		]);
		sandbox().clearRequests();

		// Three items waiting: the two pages left of the changes cost less than three reads.
		const three = await workflow.run({
			...ON_A_WORKER,
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

	it('the process keeps the indexes of 64 firms and credentials at most: the least recently used goes first', async () => {
		const references = Array.from({ length: 65 }, () => newReference());
		const stores = references.map(() => credentialsWithNewKey());
		const created = [];
		for (const [index, store] of stores.entries())
			created.push(
				await deployed(store).run({ ...ON_A_WORKER, input: itemsFor(references[index]) }),
			);
		sandbox().clearRequests();

		const forgotten = await deployed(stores[0]).run({
			...ON_A_WORKER,
			input: itemsFor(references[0]),
		});
		expect(forgotten.json[0].id).toBe(created[0].json[0].id);
		expect(sent()).toEqual([
			'POST /clients 409',
			...LISTING,
			`PATCH /clients/${created[0].json[0].id as string} 200`,
		]);
		sandbox().clearRequests();
		const kept = await deployed(stores[64]).run({
			...ON_A_WORKER,
			input: itemsFor(references[64]),
		});

		expect(kept.json[0].id).toBe(created[64].json[0].id);
		// The changes since its watermark (the creations just before it, within the commit lag, included), no create, no listing of the firm.
		expect(sent()[0]).toBe('GET /clients changed since 200');
		expect(sent().at(-1)).toBe(`PATCH /clients/${created[64].json[0].id as string} 200`);
		expect(
			sent().filter((request) => request.startsWith('POST') || request.includes('first page')),
		).toEqual([]);
	});

	describe('at the bound of what the process keeps', () => {
		// 130,000 clients: more than the 120,000 a process keeps. One listing of the firm is 651 pages.
		let large: Sandbox;
		beforeAll(async () => {
			large = await startSandbox({ clients: 130_000 });
		}, 60_000);
		afterAll(async () => {
			await large.close();
		});

		it('keeps the clients asked for and those changed last, and lists the firm again for a reference it let go', async () => {
			const firm = (await listAll(large)).filter((client) => client.referenceNumber);
			// Seeded clients last changed at random times: of the two changed longest ago, the first is
			// asked for, hence kept; the second is let go.
			const [asked, oldest] = [...firm].sort(
				(a, b) => Date.parse(a.lastModifiedAt as string) - Date.parse(b.lastModifiedAt as string),
			);
			const workflow = deployed(credentialsFor(large));
			const run = async (reference: string) =>
				await workflow.run({ ...ON_A_WORKER, input: itemsFor(reference) });
			const listings = () =>
				large.requests().filter((request) => request.path === '/clients' && !request.query.cursor);

			await run(asked.referenceNumber as string);
			expect(listings().map((request) => request.query.sinceModifiedAt)).toEqual([undefined]);
			large.clearRequests();

			const again = await run(oldest.referenceNumber as string);
			expect(again.json[0].id).toBe(oldest.id);
			expect(large.requests()[0]).toMatchObject({ method: 'POST', status: 409 });
			expect(listings().map((request) => request.query.sinceModifiedAt)).toEqual([undefined]);
			large.clearRequests();

			const known = await run(asked.referenceNumber as string);
			expect(known.json[0].id).toBe(asked.id);
			expect(
				large.requests().map(({ method, path, status }) => `${method} ${path} ${status}`),
			).toEqual(['GET /clients 200', `PATCH /clients/${asked.id as string} 200`]);
		}, 120_000);
	});
});
