import type { LoggedRequest } from 'compliance-records-sandbox';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { credentialsFor, runNode, type CredentialStore, type NodeRun } from '../../../helpers';
import { createEachClient, newClients } from '../../../helpers/bulkCreate';
import { forwardingProxy, type ProxyHooks } from '../../../helpers/forwardingProxy';
import { useSandbox } from '../../../helpers/sandbox';
import {
	clientIds,
	firmOf,
	listAll,
	serviceCall,
	serviceGet,
	SETUP_HEADER,
} from '../../../helpers/serviceApi';

/*
 * Every write once per item, whatever n8n runs again (helpers/writes.ts), in n8n's engine against
 * the sandbox: Retry On Fail and the executions list's Retry never create a client twice, and an
 * update the service may have applied is read back before it is sent again, never over someone
 * else's change.
 */

const { sandbox, credentials, credentialsWithNewKey } = useSandbox({ clients: 20 });

afterEach(() => sandbox().clearFaults());

let clockOffsetMs = 0;
/**
 * The service's clock moved on, as time passes: a change the tests made just before is then
 * older than the node's request (the node counts a change in the second or so before an update
 * it reads back as made during it).
 */
function later() {
	clockOffsetMs += 5_000;
	sandbox().setClock({ offsetMs: clockOffsetMs });
}

/** n8n's Retry On Fail: 3 tries, 100 ms apart. */
const RETRY_ON_FAIL = { maxTries: 3, waitBetweenTries: 100 };

/** The service creates the client of the POST after `after` others, then answers `status`: the answer is lost. */
const answerLostAfterCreate = (after: number, status: 502 | 503 = 503) =>
	sandbox().injectFaults({ count: 1, status, path: '/clients', after, afterHandling: true });

/** The node's credentials, its requests going through a proxy at `origin`. */
const throughProxy = (origin: string) =>
	credentialsFor({
		...sandbox(),
		baseUrl: `${origin}${new URL(sandbox().baseUrl).pathname.replace(/\/$/, '')}`,
	});

/** With a key of its own: Create or Update's process index holds nothing of another test's. */
const withRetryOnFail = (parameters: INodeParameters, input: IDataObject[]) =>
	runNode({ credentials: credentialsWithNewKey(), parameters, input, retryOnFail: RETRY_ON_FAIL });

/** Tells apart what each test names. */
let batch = 0;

const withReferences: INodeParameters = {
	...createEachClient,
	additionalFields: { referenceNumber: '={{ $json.reference }}' },
};

/** What a gateway answers when it cannot pass a request on: the service never saw it. */
const UNAVAILABLE = { status: 503, body: { message: 'Service unavailable' } };

/** Client > Create of one item with Retry On Fail, the node's requests through a proxy with `hooks`. */
async function createThroughProxy(item: IDataObject, hooks: ProxyHooks): Promise<NodeRun> {
	const proxy = await forwardingProxy(sandbox().baseUrl, hooks);
	try {
		return await runNode({
			credentials: throughProxy(proxy.origin),
			parameters: createEachClient,
			input: [item],
			retryOnFail: RETRY_ON_FAIL,
		});
	} finally {
		await proxy.close();
	}
}

const byNode = (): LoggedRequest[] =>
	sandbox()
		.requests()
		.filter((request) => request.headers[SETUP_HEADER] === undefined);

const posts = () => byNode().filter((request) => request.method === 'POST');

/** How many clients of the firm have each item's name, as the service holds them now. */
async function clientsNamedAs(input: IDataObject[]): Promise<number[]> {
	const names = (await listAll(sandbox())).map((client) => client.name);
	return input.map(
		(item) => names.filter((name) => name === `Ada ${item.lastName as string}`).length,
	);
}

/** Each item's client, once: the run output every item's client, and the firm holds one of each. */
async function expectEachCreatedOnce(run: NodeRun, input: IDataObject[]) {
	expect(run.error).toBeUndefined();
	expect(run.json.map((client) => client.name)).toEqual(
		input.map((item) => `Ada ${item.lastName as string}`),
	);
	expect(await clientsNamedAs(input)).toEqual(input.map(() => 1));
}

const statusCounts = (requests: LoggedRequest[]) => {
	const counts: Record<string, number> = {};
	for (const { status } of requests) counts[String(status)] = (counts[String(status)] ?? 0) + 1;
	return counts;
};

describe("n8n's Retry On Fail runs the whole node again: Client > Create", () => {
	it('a 503 mid-batch: the clients created are output again, not created again; the one refused is sent again (reference numbers)', async () => {
		sandbox().injectFaults({ count: 1, status: 503, path: '/clients', after: 3 });
		const input = newClients(6, { withReference: true });

		const run = await withRetryOnFail(withReferences, input);

		await expectEachCreatedOnce(run, input);
		expect(statusCounts(posts())).toEqual({ 201: 6, 503: 1 });
	});

	it('a 503 after the service created the client: the second try finds that client by its reference number (409), and outputs it', async () => {
		answerLostAfterCreate(2);
		const input = newClients(6, { withReference: true });

		const run = await withRetryOnFail(withReferences, input);

		await expectEachCreatedOnce(run, input);
		expect(statusCounts(posts())).toEqual({ 201: 5, 503: 1, 409: 1 });
	});

	it('without reference numbers, a 503 before the service created the client: the next try looks for it among the changes since, late enough to see it, finds none, and creates it', async () => {
		sandbox().injectFaults({ count: 1, status: 503, path: '/clients', after: 3 });
		const input = newClients(6);

		const run = await withRetryOnFail(createEachClient, input);

		await expectEachCreatedOnce(run, input);
		expect(statusCounts(posts())).toEqual({ 201: 6, 503: 1 });
		// The service's time, then the changes since: none is named as the item's client, so none is read.
		const gets = byNode().filter((request) => request.method === 'GET');
		expect(gets.map((get) => Object.keys(get.query).sort())).toEqual([
			['limit'],
			['limit', 'sinceModifiedAt'],
		]);
		// The commit lag (5 s) after the attempt: what it created would be listed by then.
		const refused = posts().find((post) => post.status === 503)!;
		expect(gets[0].receivedAt - refused.answeredAt!).toBeGreaterThanOrEqual(5_000);
	});

	it('without reference numbers, a create applied then answered 502: the next try finds the client it made, outputs it, and creates no other', async () => {
		answerLostAfterCreate(3, 502);
		const input = newClients(6);

		const run = await withRetryOnFail(createEachClient, input);

		await expectEachCreatedOnce(run, input);
		expect(statusCounts(posts())).toEqual({ 201: 5, 502: 1 });
		const firm = await listAll(sandbox());
		expect(run.json.map((client) => client.id)).toEqual(
			input.map(
				(item) => firm.find((client) => client.name === `Ada ${item.lastName as string}`)!.id,
			),
		);
	});

	it.each([
		[
			'an individual with every name, an email, a partner, services and a review date',
			async (): Promise<INodeParameters> => {
				const { staff, services } = (
					await serviceGet<{ data: { staff: IDataObject[]; services: IDataObject[] } }>(
						sandbox(),
						'/firm',
					)
				).data;
				return {
					entityType: 'individual',
					firstName: 'Grace',
					lastName: `Kinds ${batch}`,
					individualFields: { middleName: 'Brewster', email: 'Grace@Example.com' },
					additionalFields: {
						partnerId: staff.find((member) => member.isPartner)!.id as string,
						serviceIds: services.slice(0, 2).map((service) => service.id as string),
						nextReviewDate: '2027-05-31',
					},
				};
			},
		],
		[
			'a sole trader with a trading name',
			async (): Promise<INodeParameters> => ({
				entityType: 'sole_trader',
				firstName: 'Tom',
				lastName: 'Baker',
				soleTraderFields: { tradingName: `Baker Joinery ${batch}`, email: 'tom@baker.example' },
			}),
		],
		[
			'an organisation entered by hand',
			async (): Promise<INodeParameters> => ({
				entityType: 'organisation',
				organisationName: `Friends of the Canal ${batch}`,
				organisationType: 'NON_PROFIT',
				organisationFields: { identifyingNumber: 'CH-1138' },
			}),
		],
		[
			'a UK company from the registry',
			async (): Promise<INodeParameters> => ({
				entityType: 'import_uk_company',
				companyNumber: '09876543',
			}),
		],
	])(
		'without reference numbers, %s, applied then answered 502: the next try finds it by what it sent, and creates no other',
		async (_kind, entityParameters) => {
			batch++;
			const parameters = {
				resource: 'client',
				operation: 'create',
				status: 'EXISTING',
				...(await entityParameters()),
			};
			const before = (await listAll(sandbox())).length;
			answerLostAfterCreate(0, 502);

			const run = await runNode({
				credentials: credentials(),
				parameters,
				retryOnFail: RETRY_ON_FAIL,
			});

			expect(run.error).toBeUndefined();
			expect(posts().map((post) => post.status)).toEqual([502]);
			const firm = await listAll(sandbox());
			expect(firm).toHaveLength(before + 1);
			expect(run.json.map((client) => client.id)).toEqual([firm.at(-1)!.id]);
		},
	);

	it('without reference numbers, two identical items and the second answered 503 before the service created it: the first item’s client is not taken for it, two clients as asked', async () => {
		sandbox().injectFaults({ count: 1, status: 503, path: '/clients', after: 1 });
		const [twin] = newClients(1);

		const run = await withRetryOnFail(createEachClient, [twin, twin]);

		expect(run.error).toBeUndefined();
		expect(new Set(run.json.map((client) => client.id)).size).toBe(2);
		expect(await clientsNamedAs([twin])).toEqual([2]);
	});

	it('without reference numbers, two clients like the item’s created by someone else while its create ran: the item stops, naming them, and creates none', async () => {
		const [item] = newClients(1);
		const lastName = item.lastName as string;
		const created = async (status: string, firstName: string) =>
			(
				(
					await serviceCall(sandbox(), 'POST', '/clients', {
						status,
						entity: { object: 'individual', firstName, lastName },
					})
				).data as IDataObject
			).id as string;
		const theirs: string[] = [];
		// Someone else creates two like it and two unlike it (another person, another status),
		// then the gateway answers the node's create 503 without passing it on.
		const run = await createThroughProxy(item, {
			before: async ({ method }) => {
				if (method !== 'POST') return;
				theirs.push(await created('PROSPECT', 'Ada'), await created('PROSPECT', 'Ada'));
				await created('PROSPECT', 'Grace');
				await created('EXISTING', 'Ada');
				return UNAVAILABLE;
			},
		});

		expect(run.error?.message).toBe(
			'Several clients could be the one an earlier try created, so the node created none [item 0]',
		);
		expect(run.error?.description).toBe(
			"n8n ran the node again in this execution ('Retry On Fail', or a Retry from the executions list) after a create the service may have applied. Created since, with what this item sends: " +
				theirs.map((id) => `"Ada ${lastName}" (ID ${id})`).join(', ') +
				". Check them with Client > Get. If one is this item's client, the item needs nothing more; if none is, run the workflow again for this item (a Retry of this execution would stop here again).",
		);
		expect(await clientsNamedAs([item])).toEqual([3]);
	});

	it("without reference numbers, answers with no 'Date' to time the look by: the item is not sent again, and the error says why", async () => {
		const [item] = newClients(1);

		const run = await createThroughProxy(item, {
			before: ({ method }) => (method === 'POST' ? UNAVAILABLE : undefined),
			keepsDate: () => false,
		});

		expect(run.error?.message).toBe(
			'The node did not send this item again: an earlier try may have created it [item 0]',
		);
		expect(run.error?.description).toContain("carried no 'Date' header");
		expect(await clientsNamedAs([item])).toEqual([0]);
	});
});

describe("n8n's Retry On Fail runs the whole node again: Client > Create or Update", () => {
	const upsertClients: INodeParameters = {
		resource: 'client',
		operation: 'upsert',
		referenceNumber: '={{ $json.reference }}',
		status: 'PROSPECT',
		entityType: 'individual',
		firstName: 'Ada',
		lastName: '={{ $json.lastName ?? "Existing" }}',
		additionalFields: { nextReviewDate: '2028-01-31' },
	};

	it('a 503 mid-batch: each client created or updated once, every item output', async () => {
		batch++;
		const existing = (await clientIds(sandbox())).slice(0, 3);
		const references = existing.map((_, index) => `UPSERTED-${batch}-${index}`);
		for (const [index, id] of existing.entries())
			await serviceCall(sandbox(), 'PATCH', `/clients/${id}`, {
				referenceNumber: references[index],
			});
		const input = [
			...newClients(3, { withReference: true }),
			...references.map((reference) => ({ reference })),
		];
		later();
		sandbox().clearRequests();
		sandbox().injectFaults({ count: 1, status: 503, path: '/clients', after: 4 });

		const run = await withRetryOnFail(upsertClients, input);

		expect(run.error).toBeUndefined();
		expect(run.json.map((client) => client.referenceNumber)).toEqual(
			input.map((item) => item.reference),
		);
		expect(run.json.slice(3).map((client) => client.id)).toEqual(existing);
		expect(await clientsNamedAs(input.slice(0, 3))).toEqual([1, 1, 1]);
		const patches = byNode().filter((request) => request.method === 'PATCH');
		// Each existing client updated once: an update that succeeded is not sent again.
		expect(
			patches
				.filter((patch) => patch.status === 200)
				.map((patch) => patch.path)
				.sort(),
		).toEqual(existing.map((id) => `/clients/${id}`).sort());
		// The retried item's holder is known from the first try's listing: no second POST for it.
		expect(statusCounts(posts())).toEqual({ 201: 3, 409: 2, 503: 1 });
	});
	it('a 503 after the service created the client: the second try takes it for the client it created, without listing the firm or updating it', async () => {
		answerLostAfterCreate(0);
		const input = newClients(1, { withReference: true });

		const run = await withRetryOnFail(
			{ ...upsertClients, lastName: '={{ $json.lastName }}' },
			input,
		);

		await expectEachCreatedOnce(run, input);
		expect(run.json[0].referenceNumber).toBe(input[0].reference);
		// The refused create, the changes since the first try, the client found there: no listing of the firm, no update.
		expect(byNode().map((request) => `${request.method} ${request.status}`)).toEqual([
			'POST 503',
			'POST 409',
			'GET 200',
			'GET 200',
		]);
		expect(byNode()[2].query).toHaveProperty('sinceModifiedAt');
	});
});

describe("A Retry from n8n's executions list runs the failed node again from the saved execution", () => {
	it.each([
		// The sixth is found by its reference number: the 409, the changes since, the client.
		['with reference numbers', true, [409], 5 + 2],
		// The sixth is found by what it sent: the service's time, the changes since, the client.
		['without reference numbers', false, [], 5 + 3],
	])(
		'%s: finds the clients created before the failure, read again, not created again',
		async (_case, withReference, postsByRetry, getsByRetry) => {
			answerLostAfterCreate(3);
			const input = newClients(6, { withReference });
			const parameters = withReference ? withReferences : createEachClient;
			const failed = await runNode({ credentials: credentials(), parameters, input });
			expect(failed.error?.message).toBe(
				'The service could not complete the request (HTTP 503) [item 3]',
			);
			sandbox().clearRequests();

			const retried = await runNode({ credentials: credentials(), parameters, retryOf: failed });

			await expectEachCreatedOnce(retried, input);
			expect(posts().map((post) => post.status)).toEqual(postsByRetry);
			// The five created before are read by their ID.
			expect(byNode().filter((request) => request.method === 'GET')).toHaveLength(getsByRetry);
		},
	);
});

describe('The advice after a write the service may have applied', () => {
	it("a create answered 503: how to check, and Create or Update with a reference number; never 'Retry On Fail'", async () => {
		sandbox().injectFaults({ count: 1, status: 503, path: '/clients' });

		const run = await runNode({
			credentials: credentials(),
			parameters: createEachClient,
			input: newClients(1),
		});

		expect(run.error?.description).toContain(
			"A Retry of this execution from the executions list is safe: the node looks for the client first, and creates it only if there is none. Before you run the node any other way, check whether it exists: Client > Get Many with 'Modified Since' set to a time before this run lists it. Client > Create or Update with a 'Reference Number' is safe to run again",
		);
		expect(run.error?.description).not.toContain('Retry On Fail');
	});

	it("a create that timed out: the same, and how to wait longer; never 'Retry On Fail'", async () => {
		sandbox().injectFaults({ count: 1, hang: true, path: '/clients' });

		const run = await runNode({
			credentials: credentials(),
			parameters: { ...createEachClient, requestOptions: { timeout: 500 } },
			input: newClients(1),
		});

		expect(run.error?.message).toBe('The service did not answer within 0.5 seconds [item 0]');
		expect(run.error?.description).toMatch(
			/check whether it exists: .* If it is only slow, set 'Timeout' under 'Request Options' in the node's settings to 1000 \(milliseconds; it waited 500\)\.$/,
		);
		expect(run.error?.description).not.toContain('Retry On Fail');
	});

	it("Create or Update answered 503: running it again is safe, and says so; never 'Retry On Fail'", async () => {
		batch++;
		sandbox().injectFaults({ count: 1, status: 503, path: '/clients' });

		const run = await runNode({
			credentials: credentials(),
			parameters: {
				resource: 'client',
				operation: 'upsert',
				referenceNumber: `UPSERT-ADVICE-${batch}`,
				status: 'PROSPECT',
				entityType: 'individual',
				firstName: 'Ada',
				lastName: 'Lovelace',
			},
		});

		expect(run.error?.description).toContain(
			"Running the node again is safe: the service refuses a second client with the 'Reference Number', and the node updates the one that has it.",
		);
		expect(run.error?.description).not.toContain('Retry On Fail');
	});
});

describe('An update the service may have applied is read back, never sent blind', () => {
	/** A client of the firm with no partner, and a partner of the firm to set. */
	async function clientAndPartner(position: number) {
		const firm = await firmOf(sandbox());
		const [partner, other] = firm.staff.filter((member) => member.isPartner);
		const clientId = (await clientIds(sandbox()))[position];
		await serviceCall(sandbox(), 'PATCH', `/clients/${clientId}`, { partnerId: null });
		later();
		sandbox().clearRequests();
		return { clientId, partnerId: partner.id as string, officersPartnerId: other.id as string };
	}

	/** The service's client as it holds it now. */
	const storedClient = async (id: string) =>
		(await serviceGet<{ data: IDataObject }>(sandbox(), `/clients/${id}`)).data;

	const setPartner = (
		clientId: string,
		partnerId: string,
		{
			store = credentials(),
			retryOnFail,
		}: { store?: CredentialStore; retryOnFail?: typeof RETRY_ON_FAIL } = {},
	) =>
		runNode({
			credentials: store,
			parameters: {
				resource: 'client',
				operation: 'update',
				clientId,
				updateFields: { partnerId },
			},
			retryOnFail,
		});

	const sentByNode = () => byNode().map((request) => `${request.method} ${request.status}`);

	it.each([
		['', undefined, ['PATCH 502', 'GET 200']],
		[
			'; with Retry On Fail, each try reads the client again and sends nothing',
			RETRY_ON_FAIL,
			['PATCH 502', 'GET 200', 'GET 200', 'GET 200'],
		],
	])(
		"applied, then answered 502, and an officer changed the client in between: the officer's change is kept, and the error says so%s",
		async (_case, retryOnFail, requests) => {
			const { clientId, partnerId, officersPartnerId } = await clientAndPartner(1);
			sandbox().injectFaults({
				count: 1,
				status: 502,
				path: `/clients/${clientId}`,
				afterHandling: true,
			});
			// The officer's change lands after the node's update, before the node reads the client back.
			const proxy = await forwardingProxy(sandbox().baseUrl, {
				before: async ({ method }) => {
					if (method === 'GET')
						await serviceCall(sandbox(), 'PATCH', `/clients/${clientId}`, {
							partnerId: officersPartnerId,
						});
				},
			});
			try {
				const run = await setPartner(clientId, partnerId, {
					store: throughProxy(proxy.origin),
					retryOnFail,
				});

				expect(sentByNode()).toEqual(requests);
				expect((await storedClient(clientId)).partner).toMatchObject({ id: officersPartnerId });
				expect(run.error?.message).toBe('The client changed while the node updated it [item 0]');
				expect(run.error?.description).toBe(
					'The service may have applied the update without confirming it, and another user or system changed the client since. The node did not send the update again, so as not to undo their change. Check the client with Client > Get, then run the node again for this item if its values should still apply.',
				);
			} finally {
				await proxy.close();
			}
		},
	);

	it('applied, then answered 502, nothing in between: done, one update, the client read back output', async () => {
		const { clientId, partnerId } = await clientAndPartner(2);
		sandbox().injectFaults({
			count: 1,
			status: 502,
			path: `/clients/${clientId}`,
			afterHandling: true,
		});

		const run = await setPartner(clientId, partnerId);

		expect(run.error).toBeUndefined();
		expect(sentByNode()).toEqual(['PATCH 502', 'GET 200']);
		expect(run.json).toEqual([await storedClient(clientId)]);
		expect(run.json[0].partner).toMatchObject({ id: partnerId });
	});

	it.each([
		['answered 502 before it was applied', { status: 502 as const }, 'PATCH 502'],
		['answered 504 before it was applied', { status: 504 as const }, 'PATCH 504'],
		['cut off before it reached the service', { drop: true }, 'PATCH undefined'],
	])('%s: read back, then sent again', async (_case, fault, first) => {
		const { clientId, partnerId } = await clientAndPartner(3);
		sandbox().injectFaults({ count: 1, path: `/clients/${clientId}`, ...fault });

		const run = await setPartner(clientId, partnerId);

		expect(run.error).toBeUndefined();
		expect(sentByNode()).toEqual([first, 'GET 200', 'PATCH 200']);
		expect(run.json[0].partner).toMatchObject({ id: partnerId });
	});

	it('Individual > Update: the same, by the individual’s own fields', async () => {
		const [individual] = (
			await serviceGet<{ data: Array<{ id: string }> }>(sandbox(), '/individuals?limit=1')
		).data;
		sandbox().clearRequests();
		sandbox().injectFaults({
			count: 1,
			status: 504,
			path: `/individuals/${individual.id}`,
			afterHandling: true,
		});

		const run = await runNode({
			credentials: credentials(),
			parameters: {
				resource: 'individual',
				operation: 'update',
				individualId: individual.id,
				updateFields: {
					middleName: 'Augusta',
					residentialAddress: { line1: '12 St James’s Square', city: 'London' },
				},
			},
		});

		expect(run.error).toBeUndefined();
		expect(sentByNode()).toEqual(['PATCH 504', 'GET 200']);
		expect(run.json[0]).toMatchObject({
			middleName: 'Augusta',
			residentialAddress: { line1: '12 St James’s Square', city: 'London' },
		});
	});
});
