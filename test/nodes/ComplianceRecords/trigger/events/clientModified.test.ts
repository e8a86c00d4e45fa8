/* eslint-disable @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
import type { IDataObject } from 'n8n-workflow';

import { COMMIT_LAG_MS } from '../../../../../nodes/ComplianceRecords/helpers/serviceTime';
import { useSandbox } from '../../../../helpers/sandbox';
import { createTriggerPoller, pageHookProxy, triggerRequests } from '../../../../helpers/trigger';
import { clientIds, createClient, touchClient } from '../../../../helpers/serviceApi';

/*
 * Client Created or Modified, run by n8n-core's poll executor against the sandbox: every change
 * emitted exactly once, in the situations where polling triggers usually lose or repeat one.
 */

const { sandbox, credentials } = useSandbox({ clients: 450, controls: true });
let ids: string[];
beforeAll(async () => {
	ids = await clientIds(sandbox());
});
afterEach(() => {
	sandbox().clearFaults();
	sandbox().setClock({ frozenAt: null });
});

const parameters = { event: 'clientModified' };
let serviceOffsetMs = 0;
const freezeClock = () => sandbox().setClock({ frozenAt: sandbox().now() });
const emittedPairs = (items: IDataObject[]) =>
	items.map((item) => `${item.id}@${item.lastModifiedAt}`);
const ofIds = (items: IDataObject[]) => items.map((item) => item.id).sort();

async function activatedPoller(
	options: { budgetMs?: number; credentials?: ReturnType<typeof credentials> } = {},
) {
	const poller = createTriggerPoller({
		parameters,
		credentials: options.credentials ?? credentials(),
		budgetMs: options.budgetMs,
	});
	expect(await poller.poll()).toEqual([]);
	return poller;
}

async function touchAll(clients: string[]) {
	const touched: IDataObject[] = [];
	for (const id of clients) touched.push(await touchClient(sandbox(), id));
	return touched;
}

describe('the first poll (activation)', () => {
	it("emits nothing, starts at the service's own time, and misses no change made before the next poll", async () => {
		await touchClient(sandbox(), ids[0]); // before activation: never emitted
		sandbox().clearRequests();
		const poller = createTriggerPoller({ parameters, credentials: credentials() });

		const serviceNow = Date.parse(sandbox().now());
		expect(await poller.poll()).toEqual([]);
		// One request to read the service's time (its Date header), then the changes since then,
		// less the commit lag, recorded as known. No look-back by the n8n host's clock.
		const requests = triggerRequests(sandbox());
		expect(requests.map((request) => request.query)).toEqual([
			{ limit: '1' },
			{ limit: '200', sinceModifiedAt: expect.any(String) },
		]);
		const since = Date.parse(String(requests[1].query.sinceModifiedAt));
		expect(serviceNow - COMMIT_LAG_MS - since).toBeGreaterThanOrEqual(0);
		expect(serviceNow - COMMIT_LAG_MS - since).toBeLessThan(2_500); // the Date's second, the round trip

		const changed = await touchClient(sandbox(), ids[1]);
		const created = await createClient(sandbox(), 'Activation');
		const emitted = await poller.poll();
		expect(emitted.map(({ id, lastModifiedAt }) => ({ id, lastModifiedAt }))).toEqual([
			{ id: changed.id, lastModifiedAt: changed.lastModifiedAt },
			{ id: created.id, lastModifiedAt: created.lastModifiedAt },
		]);
		expect(emitted[1].entity).toMatchObject({ object: 'individual' }); // the list item, as listed
		expect(await poller.poll()).toEqual([]);
	});

	it('when its listing takes several polls (a burst before activation), records only the burst: a change after activation is emitted, wherever it lies', async () => {
		freezeClock();
		await touchAll(ids.slice(0, 400)); // before activation: two pages, never emitted
		// Activation comes more than the commit lag after the burst (a change made within the lag
		// before activation, on a page the first poll did not reach, would be emitted).
		serviceOffsetMs += 10_000;
		sandbox().setClock({ frozenAt: null, offsetMs: serviceOffsetMs });
		sandbox().injectFaults({ count: 1_000, delayMs: 300, path: '/clients' });
		const poller = createTriggerPoller({ parameters, credentials: credentials(), budgetMs: 1_000 });
		sandbox().clearRequests();
		expect(await poller.poll()).toEqual([]); // the service's time, then the first page only
		expect(triggerRequests(sandbox())).toHaveLength(2);

		const listed = await touchClient(sandbox(), ids[10]); // on the page already listed
		const ahead = await touchClient(sandbox(), ids[300]); // on the page not listed yet
		const emitted = [...(await poller.poll()), ...(await poller.poll()), ...(await poller.poll())];
		expect(emittedPairs(emitted).sort()).toEqual(emittedPairs([listed, ahead]).sort());
		expect(await poller.poll()).toEqual([]);
	});

	it('behind a proxy that drops the Date header: looks back one day by the host clock instead, and never fails', async () => {
		const proxy = await pageHookProxy(sandbox());
		try {
			proxy.sendDate(false);
			await touchClient(sandbox(), ids[2]); // before activation: never emitted
			sandbox().clearRequests();
			const hostNow = Date.now();
			const poller = createTriggerPoller({ parameters, credentials: proxy.credentials() });
			expect(await poller.poll()).toEqual([]);
			const listing = triggerRequests(sandbox())[1];
			expect(
				Math.abs(
					Date.parse(String(listing.query.sinceModifiedAt)) - (hostNow - 24 * 60 * 60 * 1000),
				),
			).toBeLessThan(5_000);

			const changed = await touchClient(sandbox(), ids[3]);
			expect(emittedPairs(await poller.poll())).toEqual(emittedPairs([changed]));
			expect(await poller.poll()).toEqual([]);
		} finally {
			await proxy.close();
		}
	});
});

describe('exactly once', () => {
	it('1. splits many clients with the same lastModifiedAt across two polls, each emitted once', async () => {
		const poller = await activatedPoller();
		freezeClock();
		const first = await touchAll(ids.slice(0, 250)); // two pages of ties
		expect(new Set(first.map((client) => client.lastModifiedAt)).size).toBe(1);
		expect(ofIds(await poller.poll())).toEqual(ofIds(first));

		const second = await touchAll(ids.slice(250, 330)); // the same instant, after the poll
		expect(second[0].lastModifiedAt).toBe(first[0].lastModifiedAt);
		expect(ofIds(await poller.poll())).toEqual(ofIds(second));
		expect(await poller.poll()).toEqual([]);
	});

	it('2. emits a client changed while the poll pages, at a position already passed, by the next poll', async () => {
		const proxy = await pageHookProxy(sandbox());
		try {
			const poller = await activatedPoller({ credentials: proxy.credentials() });
			const listed = await touchAll(ids.slice(100, 350)); // 250 changes: two pages
			let passed: IDataObject | undefined; // position 5: on page 1, already read
			let ahead: IDataObject | undefined; // position 440: on page 2, not read yet
			proxy.onLaterPage(async () => {
				passed = await touchClient(sandbox(), ids[5]);
				await new Promise((resolve) => setTimeout(resolve, 5));
				ahead = await touchClient(sandbox(), ids[440]);
			});

			const during = await poller.poll();
			proxy.onLaterPage(() => undefined);
			expect(ofIds(during)).toEqual(ofIds([...listed, ahead as IDataObject]));
			// The danger: the passed change is older than the newest change this poll saw.
			expect(String(passed?.lastModifiedAt) < String(ahead?.lastModifiedAt)).toBe(true);

			expect(emittedPairs(await poller.poll())).toEqual(emittedPairs([passed as IDataObject]));
			expect(await poller.poll()).toEqual([]);
		} finally {
			await proxy.close();
		}
	});

	it.each([
		['a 500', { status: 500 as const }, /could not complete the request \(HTTP 500\)/],
		['a timeout', { delayMs: 2_500 }, /did not answer within this poll's time budget/],
	])(
		'3. a poll failing part-way with %s emits nothing and moves nothing; the next emits everything since the last good one',
		async (_, fault, message) => {
			const proxy = await pageHookProxy(sandbox());
			try {
				const poller = await activatedPoller({ credentials: proxy.credentials(), budgetMs: 1_500 });
				const before = poller.saved();
				const changed = await touchAll(ids.slice(0, 230));
				proxy.onLaterPage(() => sandbox().injectFaults({ count: 1, path: '/clients', ...fault }));

				await expect(poller.poll()).rejects.toThrow(message);
				expect(poller.saved()).toEqual(before);
				expect(poller.inMemory()).toEqual(before);

				proxy.onLaterPage(() => undefined);
				const later = await touchClient(sandbox(), ids[400]);
				expect(ofIds(await poller.poll())).toEqual(ofIds([...changed, later]));
				expect(await poller.poll()).toEqual([]);
			} finally {
				await proxy.close();
			}
		},
	);

	it('3. a 429 part-way, whose wait fits in the poll: the page is asked again after the wait, and every change emitted once', async () => {
		const proxy = await pageHookProxy(sandbox());
		try {
			const poller = await activatedPoller({ credentials: proxy.credentials(), budgetMs: 10_000 });
			const changed = await touchAll(ids.slice(0, 230));
			let refused = false;
			proxy.onLaterPage(() => {
				if (!refused)
					sandbox().injectFaults({ count: 1, path: '/clients', status: 429, retryAfterSeconds: 1 });
				refused = true;
			});
			sandbox().clearRequests();

			const started = performance.now();
			expect(ofIds(await poller.poll())).toEqual(ofIds(changed));

			expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
			const pages = triggerRequests(sandbox()).map((request) => [
				request.query.cursor !== undefined,
				request.status,
			]);
			expect(pages).toEqual([
				[false, 200],
				[true, 429],
				[true, 200],
			]);
			proxy.onLaterPage(() => undefined);
			expect(await poller.poll()).toEqual([]);
		} finally {
			await proxy.close();
		}
	});

	it('3. a 429 part-way, asking more than the poll has left: the poll emits the pages it read and keeps its place; the next goes on, nothing lost or repeated', async () => {
		const proxy = await pageHookProxy(sandbox());
		try {
			const poller = await activatedPoller({ credentials: proxy.credentials(), budgetMs: 1_500 });
			freezeClock(); // one time for the whole burst: only the saved cursor can resume it
			const changed = await touchAll(ids.slice(0, 230));
			sandbox().setClock({ frozenAt: null });
			proxy.onLaterPage(() =>
				sandbox().injectFaults({ count: 1, path: '/clients', status: 429, retryAfterSeconds: 30 }),
			);

			const first = await poller.poll();
			expect(first).toHaveLength(200);
			expect(poller.saved().sweep).toMatchObject({ next: expect.any(String) });

			proxy.onLaterPage(() => undefined);
			const later = await touchClient(sandbox(), ids[300]);
			const second = await poller.poll();
			expect(emittedPairs([...first, ...second]).sort()).toEqual(
				emittedPairs([...changed, later]).sort(),
			);
			expect(await poller.poll()).toEqual([]);
		} finally {
			await proxy.close();
		}
	});

	it("3. a 429 at the poll's first request, asking more than the poll has left: fails with n8n's cause and the wait asked, moving nothing", async () => {
		const poller = await activatedPoller({ budgetMs: 1_500 });
		const before = poller.saved();
		const changed = await touchAll(ids.slice(0, 3));
		sandbox().injectFaults({ count: 1, path: '/clients', status: 429, retryAfterSeconds: 90 });

		const failed: unknown = await poller.poll().catch((error: Error) => error);

		expect(failed).toMatchObject({
			message: 'The service is receiving too many requests',
			failure: { cause: 'rate-limited', retryAfterMs: 90_000 },
		});
		expect((failed as { description: string }).description).toContain(
			'It asked to wait 90 seconds before the next request; this poll had',
		);
		expect(poller.saved()).toEqual(before);
		expect(ofIds(await poller.poll())).toEqual(ofIds(changed));
	});

	it('3. a 503 part-way: the page is asked again, and every change emitted once', async () => {
		const proxy = await pageHookProxy(sandbox());
		try {
			const poller = await activatedPoller({ credentials: proxy.credentials() });
			const changed = await touchAll(ids.slice(0, 230));
			let refused = false;
			proxy.onLaterPage(() => {
				if (!refused) sandbox().injectFaults({ count: 1, path: '/clients', status: 503 });
				refused = true;
			});

			expect(ofIds(await poller.poll())).toEqual(ofIds(changed));
			proxy.onLaterPage(() => undefined);
			expect(await poller.poll()).toEqual([]);
		} finally {
			await proxy.close();
		}
	});

	it.each([
		[
			'without a data list',
			{ meta: { total: 1 } },
			/cannot read: a page of the client list holds no list/,
		],
		[
			'with a client without lastModifiedAt',
			{ data: [{ id: 'x' }], meta: { total: 1 } },
			/the last change time of client x is undefined/,
		],
	])('3. a poll given a page %s emits nothing and moves nothing', async (_, body, message) => {
		const proxy = await pageHookProxy(sandbox());
		try {
			const poller = await activatedPoller({ credentials: proxy.credentials() });
			const before = poller.saved();
			const changed = await touchAll(ids.slice(0, 230));
			proxy.onLaterPage(() => ({ status: 200, body }));
			const refused = await poller.poll().catch((error: Error & { description?: string }) => error);
			expect(refused).toMatchObject({ message: expect.stringMatching(message) });
			// What to do if it comes back, as n8n shows it under the message.
			expect((refused as { description?: string }).description).toMatch(
				/next poll reads the same changes again\. If this comes back at every poll, check that the credential's 'Base URL' is the service's API address/,
			);
			expect(poller.inMemory()).toEqual(before);
			proxy.onLaterPage(() => undefined);
			expect(ofIds(await poller.poll())).toEqual(ofIds(changed));
		} finally {
			await proxy.close();
		}
	});

	it('4. gives the same result when the same poll runs twice from the same saved state', async () => {
		const poller = await activatedPoller();
		freezeClock();
		await touchAll(ids.slice(0, 40));
		const state = poller.saved();

		const first = await poller.poll();
		const advanced = poller.saved();
		poller.load(state); // n8n's scheduler runs the occurrence again, or n8n restarted
		const second = await poller.poll();
		expect(emittedPairs(second)).toEqual(emittedPairs(first));
		expect(first).toHaveLength(40);

		poller.load(advanced);
		expect(await poller.poll()).toEqual([]);
	});

	it('6. emits a client changed twice between polls once, in its latest state, and again after a further change', async () => {
		const poller = await activatedPoller();
		await touchClient(sandbox(), ids[7]);
		const latest = await touchClient(sandbox(), ids[7], { nextReviewDate: '2031-01-31' });

		const emitted = await poller.poll();
		expect(emitted).toHaveLength(1);
		expect(emitted[0]).toMatchObject({
			id: ids[7],
			lastModifiedAt: latest.lastModifiedAt,
			nextReviewDate: '2031-01-31',
		});

		const again = await touchClient(sandbox(), ids[7]);
		expect(emittedPairs(await poller.poll())).toEqual(emittedPairs([again]));
	});

	it('lets an overlapping slower poll emit nothing: the newer poll already emitted its changes', async () => {
		const poller = await activatedPoller();
		const changed = await touchAll(ids.slice(0, 3));
		sandbox().injectFaults({ count: 1, path: '/clients', delayMs: 600 });
		const slow = poller.poll(); // n8n's in-memory poller starts the next tick regardless
		await new Promise((resolve) => setTimeout(resolve, 100));
		const fast = await poller.poll();
		expect(ofIds(fast)).toEqual(ofIds(changed));
		expect(await slow).toEqual([]);
		expect(await poller.poll()).toEqual([]);
	});
});

describe('the saved state', () => {
	it('holds the changes of the last few seconds only, and no more once time has moved on', async () => {
		const poller = await activatedPoller();
		// Ten seconds later (the service's clock only ever moves forward), 200 clients tie.
		serviceOffsetMs += 10_000;
		sandbox().setClock({ offsetMs: serviceOffsetMs });
		freezeClock();
		await touchAll(ids.slice(0, 200));
		expect(await poller.poll()).toHaveLength(200);
		// 8 characters per tied client, plus the watermark.
		expect(JSON.stringify(poller.saved()).length).toBeLessThan(200 * 8 + 150);

		serviceOffsetMs += 10_000;
		sandbox().setClock({ offsetMs: serviceOffsetMs, frozenAt: null });
		await touchClient(sandbox(), ids[300]);
		expect(await poller.poll()).toHaveLength(1);
		expect(JSON.stringify(poller.saved()).length).toBeLessThan(150);
	});

	it('starts over as on activation when the event changes', async () => {
		const poller = await activatedPoller();
		poller.load({ ...poller.saved(), event: 'amlDeterminationCompleted' });
		await touchClient(sandbox(), ids[9]);
		expect(await poller.poll()).toEqual([]); // an activation: records, emits nothing
		expect(poller.saved().event).toBe('clientModified');
	});
});

describe('Fetch Full Client', () => {
	it('emits the full client, with one GET per emitted client and nothing fetched twice', async () => {
		const poller = createTriggerPoller({
			parameters: { ...parameters, options: { fetchFullClient: true } },
			credentials: credentials(),
		});
		expect(await poller.poll()).toEqual([]);
		const changed = await touchAll([ids[20], ids[21]]);
		sandbox().clearRequests();

		const emitted = await poller.poll();
		expect(ofIds(emitted)).toEqual(ofIds(changed));
		for (const client of emitted) {
			expect(client).toHaveProperty('services');
			expect(client).toHaveProperty('createdAt');
			expect(client.entity).toHaveProperty('createdAt'); // the full entity, not a reference
		}
		// Pages of the list, then one GET per emitted client: none fetched twice, none else.
		const requests = triggerRequests(sandbox()).map(
			(request) => `${request.method} ${request.path}`,
		);
		const gets = requests.filter((request) => request !== 'GET /clients');
		expect(gets.sort()).toEqual(changed.map((client) => `GET /clients/${client.id}`).sort());
		expect(await poller.poll()).toEqual([]);
	});
});

describe.each([
	['ahead of', -5 * 60_000],
	['behind', 5 * 60_000],
])("5. with the n8n host's clock 5 minutes %s the service's", (_, serviceOffsetMs) => {
	const skewed = useSandbox({ clients: 300, controls: true });
	beforeAll(() => skewed.sandbox().setClock({ offsetMs: serviceOffsetMs }));

	it('loses nothing: changes right after activation, and changes made while a poll pages', async () => {
		const service = skewed.sandbox();
		const skewedIds = await clientIds(service);
		const proxy = await pageHookProxy(service);
		try {
			const poller = createTriggerPoller({ parameters, credentials: proxy.credentials() });
			service.clearRequests();
			expect(await poller.poll()).toEqual([]);
			// It starts at the service's time, whatever the host's clock says.
			const since = Date.parse(String(service.requests()[1].query.sinceModifiedAt));
			expect(Date.parse(service.now()) - COMMIT_LAG_MS - since).toBeLessThan(3_000);
			expect(Date.parse(service.now()) - COMMIT_LAG_MS - since).toBeGreaterThanOrEqual(0);
			const right = await touchClient(service, skewedIds[0]);
			expect(emittedPairs(await poller.poll())).toEqual(emittedPairs([right]));

			const listed: IDataObject[] = [];
			for (const id of skewedIds.slice(50, 280)) listed.push(await touchClient(service, id));
			let passed: IDataObject | undefined;
			proxy.onLaterPage(async () => {
				passed = await touchClient(service, skewedIds[1]);
			});
			expect(ofIds(await poller.poll())).toEqual(ofIds(listed));
			proxy.onLaterPage(() => undefined);
			expect(emittedPairs(await poller.poll())).toEqual(emittedPairs([passed as IDataObject]));
			expect(await poller.poll()).toEqual([]);
		} finally {
			await proxy.close();
		}
	});
});
