/* eslint-disable no-console -- development tooling: runs in Node, not in n8n; prints what it measures */
import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from '../../../helpers/sandbox';
import type { Sandbox } from 'compliance-records-sandbox';
import { createTriggerPoller, pageHookProxy, type TriggerPoller } from '../../../helpers/trigger';
import { clientIds, createClient, touchClient } from '../../../helpers/serviceApi';

/*
 * Randomized soaks of Client Created or Modified against the sandbox's own change log.
 *
 * The first: 30 polls over 3,000 random changes (edits, AML determinations, new clients), bursts with a
 * frozen clock (ties), changes written while a poll pages, and faults injected before or
 * part-way through a poll (500, 503, 429, a response slower than the poll's budget). The
 * service's clock moves a minute between polls, as an "Every Minute" poll would see it.
 *
 * Definitions, over the changes made after activation (the sandbox's `changes()`):
 * - repeated: the same client emitted twice with the same lastModifiedAt;
 * - phantom: an emitted (client, lastModifiedAt) that is not in the change log;
 * - lost: a change (client, t) for which no successful poll, up to and including the first
 *   one that started after the change a listing of its own and listed to the end, emitted that
 *   client with a lastModifiedAt >= t (a change made while a poll pages may come with that poll
 *   or the next; a poll the service refused part-way with a 429 or 503 ends early and keeps its
 *   place, and the poll that goes on with its listing passes what it had passed; a change
 *   superseded by a later one of the same client is covered by the later one's emission).
 * A failed poll emits nothing. Every successful poll leaves a few KB of static data at most.
 *
 * The second adds what makes a listing span polls: bursts touching up to every client of the
 * firm within a second (the service's batch jobs), pages slowed down, a short poll budget, and
 * saved page cursors the service refuses (expired). There, lost means never emitted, once
 * quiet polls have drained everything; no poll may fail but those given an injected 500 (a 429
 * or 503 part-way is asked again, or ends the poll early as its budget would).
 */

const POLLS = 30;
const CHANGES = 3_000;
const BUDGET_MS = 1_200;

const { sandbox } = useSandbox({ clients: 1_000, controls: true, seed: 'soak' });

const emissionsOf = (polls: PollRecord[]) =>
	polls.flatMap((poll, index) =>
		poll.emitted.map((item) => ({
			key: `${item.id}@${item.lastModifiedAt}`,
			id: item.id,
			at: String(item.lastModifiedAt),
			poll: index,
		})),
	);

function random(seed: number) {
	let state = seed;
	const next = () => {
		state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
		return state / 2 ** 31;
	};
	return {
		next,
		int: (below: number) => Math.floor(next() * below),
		chance: (p: number) => next() < p,
	};
}

interface PollRecord {
	/** The change log's length when the poll started: changes before it are older. */
	startedAt: number;
	succeeded: boolean;
	/** It started a listing of its own (no listing was saved to go on with). */
	fresh: boolean;
	/** It listed to the end (no listing saved to go on with). */
	complete: boolean;
	emitted: IDataObject[];
}

/** Runs polls and records each, the failures' messages and the largest saved state; faults last one poll. */
function pollRecorder(service: Sandbox, poller: TriggerPoller) {
	const polls: PollRecord[] = [];
	const failures: string[] = [];
	let maxStateBytes = 0;
	return {
		polls,
		failures,
		maxStateBytes: () => maxStateBytes,
		async run() {
			const fresh = poller.saved().sweep === undefined;
			const record: PollRecord = {
				startedAt: service.changes().length,
				succeeded: false,
				fresh,
				complete: false,
				emitted: [],
			};
			polls.push(record);
			try {
				record.emitted = await poller.poll();
				record.succeeded = true;
				record.complete = poller.saved().sweep === undefined;
				maxStateBytes = Math.max(maxStateBytes, JSON.stringify(poller.saved()).length);
			} catch (error) {
				failures.push((error as Error).message);
			}
			service.clearFaults();
		},
	};
}

it('loses no change and repeats none over 30 polls and 3,000 random changes', async () => {
	const service = sandbox();
	const rng = random(20261122);
	const ids = await clientIds(service);
	const proxy = await pageHookProxy(service);
	let serviceOffsetMs = 0;
	let created = 0;

	const change = async () => {
		const roll = rng.next();
		if (roll < 0.05) {
			const client = await createClient(service, `Soak ${++created}`);
			ids.push(client.id as string);
		} else if (roll < 0.2) {
			service.completeAmlDetermination(ids[rng.int(ids.length)], 'NORMAL');
		} else {
			await touchClient(service, ids[rng.int(ids.length)]);
		}
	};
	const fault = () =>
		rng.chance(0.15)
			? { delayMs: BUDGET_MS + 800 }
			: { status: ([500, 503, 429] as const)[rng.int(3)], retryAfterSeconds: 1 };

	try {
		const poller = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: proxy.credentials(),
			budgetMs: BUDGET_MS,
		});
		expect(await poller.poll()).toEqual([]);
		const activatedAt = service.changes().length;

		// Burst sizes adding up to 3,000 (mid-poll writes come on top); the large ones take two
		// pages to list, so writes and faults can land between pages.
		const weights = Array.from({ length: POLLS }, () =>
			rng.chance(0.4) ? 3 + rng.next() : 0.2 + rng.next() * 0.6,
		);
		const total = weights.reduce((sum, weight) => sum + weight, 0);
		const bursts = weights.map((weight) => Math.round((weight / total) * CHANGES));
		bursts[POLLS - 1] += CHANGES - bursts.reduce((sum, size) => sum + size, 0);

		const { polls, failures, maxStateBytes, run: runPoll } = pollRecorder(service, poller);
		let midPollWrites = 0;

		for (const burst of bursts) {
			serviceOffsetMs += 60_000;
			service.setClock({ offsetMs: serviceOffsetMs });
			const tied = rng.chance(0.3);
			if (tied) service.setClock({ frozenAt: service.now() });
			for (let i = 0; i < burst; i++) await change();
			if (tied) service.setClock({ frozenAt: null });

			const failPartWay = rng.chance(0.25);
			if (rng.chance(0.15)) service.injectFaults({ count: 1, path: '/clients', ...fault() });
			proxy.onLaterPage(async () => {
				if (rng.chance(0.6)) {
					for (let i = 1 + rng.int(15); i > 0; i--, midPollWrites++) await change();
				}
				if (failPartWay) service.injectFaults({ count: 1, path: '/clients', ...fault() });
			});
			await runPoll();
		}
		proxy.onLaterPage(() => undefined);
		await runPoll(); // two quiet polls: whatever the last ones left is emitted now
		await runPoll();

		const changes = service.changes().slice(activatedAt);
		const emissions = emissionsOf(polls);
		const repeated = emissions.length - new Set(emissions.map((emission) => emission.key)).size;
		const logged = new Set(changes.map((change) => `${change.clientId}@${change.lastModifiedAt}`));
		const phantoms = emissions.filter((emission) => !logged.has(emission.key));
		const lost = changes.filter((change, index) => {
			const position = activatedAt + index;
			const deadline = polls.findIndex(
				(poll) => poll.fresh && poll.complete && poll.startedAt > position,
			);
			return !emissions.some(
				(emission) =>
					emission.id === change.clientId &&
					emission.at >= change.lastModifiedAt &&
					(deadline === -1 || emission.poll <= deadline),
			);
		});

		console.log(
			`soak: ${changes.length} changes (${midPollWrites} while paging), ${emissions.length} emitted, ` +
				`${failures.length} failed polls, largest burst ${Math.max(...bursts)}, largest saved state ${maxStateBytes()} bytes`,
		);
		expect(changes.length).toBe(CHANGES + midPollWrites);
		expect(midPollWrites).toBeGreaterThan(0);
		expect(failures.length).toBeGreaterThan(2);
		expect(polls.filter((poll) => !poll.succeeded).every((poll) => poll.emitted.length === 0)).toBe(
			true,
		);
		expect({ repeated, phantoms: phantoms.length, lost: lost.length }).toEqual({
			repeated: 0,
			phantoms: 0,
			lost: 0,
		});
		expect(maxStateBytes()).toBeLessThan(6_000);
	} finally {
		await proxy.close();
	}
});

it.each([
	{ budgetMs: 500, seed: 1 },
	{ budgetMs: 1_500, seed: 2 },
])(
	'with bursts, slow pages, expired cursors and a $budgetMs ms budget: loses no change and repeats none',
	async ({ budgetMs, seed }) => {
		const ROUNDS = 25;
		const service = sandbox();
		const rng = random(seed * 7_919 + 20261123);
		// Draws made while a poll pages: how many pages it has depends on timing, so they come from a
		// generator of their own, and the rounds stay the same run after run.
		const pageRng = random(seed * 7_919 + 1);
		const ids = await clientIds(service);
		const proxy = await pageHookProxy(service);
		let serviceOffsetMs = seed * 24 * 60 * 60_000; // after the earlier soaks' clocks
		service.setClock({ offsetMs: serviceOffsetMs, frozenAt: null });
		/** Polls during which the service answered a 500 to a later page (each fails). */
		let pollsRefused = 0;

		try {
			const poller = createTriggerPoller({
				parameters: { event: 'clientModified' },
				credentials: proxy.credentials(),
				budgetMs,
			});
			expect(await poller.poll()).toEqual([]);
			const activatedAt = service.changes().length;
			const { polls, failures, maxStateBytes, run: runPoll } = pollRecorder(service, poller);
			let largestBurst = 0;

			for (let round = 0; round < ROUNDS; round++) {
				serviceOffsetMs += 60_000;
				service.setClock({ offsetMs: serviceOffsetMs, frozenAt: null });
				if (rng.chance(0.3)) {
					// A batch job: up to every client of the firm within one second, in 10 ties.
					const size = 100 + rng.int(ids.length - 100);
					largestBurst = Math.max(largestBurst, size);
					const start = Date.parse(service.now());
					const touched = [...ids].sort(() => rng.next() - 0.5).slice(0, size);
					touched.forEach((id, index) => {
						if (index % Math.ceil(size / 10) === 0)
							service.setClock({ frozenAt: new Date(start + (index * 999) / size).toISOString() });
						service.completeAmlDetermination(id, 'NORMAL');
					});
					serviceOffsetMs += 1_000; // the service's clock goes on from the end of the burst, never back
					service.setClock({ offsetMs: serviceOffsetMs, frozenAt: null });
				}
				for (let i = rng.int(20); i > 0; i--) await touchClient(service, ids[rng.int(ids.length)]);
				if (rng.chance(0.1))
					ids.push((await createClient(service, `Burst soak ${round}`)).id as string);

				if (rng.chance(0.6))
					service.injectFaults({ count: 1_000, path: '/clients', delayMs: 20 + rng.int(60) });
				if (rng.chance(0.2)) service.expireCursors();
				let refused: number | undefined;
				let refusedFirst = false;
				const resumes = poller.saved().sweep !== undefined;
				if (rng.chance(0.1)) {
					const status = ([500, 503, 429] as const)[rng.int(3)];
					// This page is answered with the error: no slow-page fault stands before it.
					proxy.onLaterPage((page) => {
						refused = status;
						refusedFirst ||= resumes && page === 2;
						service.clearFaults();
						service.injectFaults({ count: 1, path: '/clients', status });
					});
				} else {
					// Writes while the poll pages, made at once (the page's time is the service's own).
					proxy.onLaterPage(() => {
						if (pageRng.chance(0.3))
							for (let i = 1 + pageRng.int(5); i > 0; i--)
								service.completeAmlDetermination(ids[pageRng.int(ids.length)], 'HIGH');
					});
				}
				await runPoll();
				// A 500 fails the poll. A 429 or 503 is asked again, or ends the poll early keeping the
				// pages it read; only at the poll's first request, with no page to keep, does it fail.
				const failed = !polls.at(-1)?.succeeded;
				if (refused === 500) pollsRefused++;
				// Refused at the poll's first request, it waits and goes on or fails, as the poll's time allows.
				expect({ round, refused, failed }).toEqual({
					round,
					refused,
					failed: refused === 500 || (refusedFirst ? expect.any(Boolean) : false),
				});
			}

			// Quiet: poll until a poll is one request that emits nothing (everything drained).
			proxy.onLaterPage(() => undefined);
			for (let quiet = 0; quiet < 40; quiet++) {
				serviceOffsetMs += 60_000;
				service.setClock({ offsetMs: serviceOffsetMs, frozenAt: null });
				service.clearRequests();
				await runPoll();
				if (polls.at(-1)?.emitted.length === 0 && service.requests().length === 1) break;
			}
			expect(service.requests()).toHaveLength(1);

			const changes = service.changes().slice(activatedAt);
			const emissions = emissionsOf(polls);
			const repeated = emissions.length - new Set(emissions.map((emission) => emission.key)).size;
			const logged = new Set(
				changes.map((change) => `${change.clientId}@${change.lastModifiedAt}`),
			);
			const phantoms = emissions.filter((emission) => !logged.has(emission.key));
			const lost = changes.filter(
				(change) =>
					!emissions.some(
						(emission) => emission.id === change.clientId && emission.at >= change.lastModifiedAt,
					),
			);
			console.log(
				`burst soak (budget ${budgetMs} ms): ${changes.length} changes, largest burst ${largestBurst}, ${emissions.length} emitted over ${polls.length} polls ` +
					`(${polls.filter((poll) => poll.emitted.length > 0).length} emitting), ${failures.length} failed (${pollsRefused} refused a page with a 500), largest saved state ${maxStateBytes()} bytes`,
			);
			expect({ repeated, phantoms: phantoms.length, lost: lost.length }).toEqual({
				repeated: 0,
				phantoms: 0,
				lost: 0,
			});
			expect(largestBurst).toBeGreaterThan(500);
			for (const message of failures) expect(message).toMatch(/HTTP 50[03]|too many requests/);
			expect(maxStateBytes()).toBeLessThan(20_000);
		} finally {
			await proxy.close();
		}
	},
);
