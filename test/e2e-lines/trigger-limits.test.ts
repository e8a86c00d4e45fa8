/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * The published trigger (Client Created or Modified) meeting a 429 in the middle of a listing, on
 * n8n 1.123.81 and 2.40.7 at once (see environment.ts): 450 changes, so that the next poll lists
 * three pages of 200, 200 and 50 clients, and the sandbox answers each line's second page 429
 * with a Retry-After. Each line's trigger polls with an API key of its own, which the sandbox's
 * faults single out (the environment's OAuth2 triggers send a new token at every poll), at two
 * fixed seconds a minute, 30 s apart: the changes are made before the next poll, and the poll
 * after it comes 30 s later. n8n 1.x keeps no header of an OAuth2 answer it throws: there the
 * page would be asked again after the node's own wait instead of the Retry-After, as
 * limits.test.ts shows for the action node.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { LoggedRequest } from 'compliance-records-sandbox';
import { countDelivery, triggerEmissions, type Change } from '../helpers/n8n/delivery';
import { everyMinuteTrigger } from '../helpers/n8n/demo';
import { executionsOf, waitFor, type N8nRest } from '../helpers/n8n/instance';
import { newApiKeyCredential } from '../helpers/sandboxControl';
import { clientIds, createClient, touchClient } from '../helpers/serviceApi';
import {
	lines,
	publishTrigger,
	sandboxControl,
	sandboxRequests,
	signedIn,
	TRIGGER_NAME,
	TRIGGER_NODE,
	VERSIONS,
} from './environment';

const RETRY_AFTER_SECONDS = 5;

/** 450 changes, each to a client of its own: more than two pages of the trigger's listing. */
const TOUCHED = 250;
const CREATED = 200;

interface Watching {
	version: string;
	rest: N8nRest;
	workflowId: string;
	apiKey: string;
}

const watching: Watching[] = [];

afterAll(async () => {
	await sandboxControl('DELETE', '/faults');
	for (const { rest, workflowId } of watching) await rest.unpublishWorkflow(workflowId);
});

/** A trigger's requests after `since`, one list per poll: a poll's listing starts without a cursor. */
async function pollsOf(apiKey: string, since: number): Promise<LoggedRequest[][]> {
	const polls: LoggedRequest[][] = [];
	for (const request of await sandboxRequests()) {
		if (request.headers.authorization !== `Bearer ${apiKey}` || request.receivedAt < since)
			continue;
		if (request.query.cursor === undefined) polls.push([]);
		polls.at(-1)?.push(request);
	}
	return polls;
}

const pages = (poll: LoggedRequest[]) =>
	poll.map((request) => [
		request.query.cursor === undefined ? 'first page' : 'later page',
		request.status,
	]);

test('the published trigger, on an API key, on both lines: a 429 with Retry-After for a later page of a listing delays the poll, which then delivers every change exactly once', async () => {
	const { baseUrl } = lines().sandbox;
	// Time to publish and make the changes before the first scheduled poll.
	const firstSecond = (new Date().getSeconds() + 30) % 60;
	const pollTimes = {
		item: [firstSecond, (firstSecond + 30) % 60].map((second) => ({
			mode: 'custom',
			cronExpression: `${second} * * * * *`,
		})),
	};
	for (const version of VERSIONS) {
		const rest = await signedIn(version);
		const { id, name, apiKey } = await newApiKeyCredential(
			rest,
			baseUrl,
			`Trigger limits (n8n ${version})`,
		);
		const trigger = everyMinuteTrigger(
			TRIGGER_NODE,
			TRIGGER_NAME,
			{ complianceRecordsApi: { id, name } },
			{ pollTimes },
		);
		watching.push({
			version,
			rest,
			apiKey,
			workflowId: await publishTrigger(rest, version, 'Trigger on an API key, limited', trigger),
		});
	}
	const watchingSince = Date.now();

	const { key } = await sandboxControl<{ key: string }>('POST', '/api-keys', {
		name: 'The firm, changing clients',
	});
	const service = { baseUrl, apiKey: key };
	const logged = (await sandboxControl<Change[]>('GET', '/changes')).length;
	for (const clientId of (await clientIds(service)).slice(0, TOUCHED))
		await touchClient(service, clientId);
	for (let created = 1; created <= CREATED; created++)
		await createClient(service, `Burst ${created}`);
	const changes = (await sandboxControl<Change[]>('GET', '/changes')).slice(logged);
	expect(changes).toHaveLength(TOUCHED + CREATED);
	for (const { apiKey } of watching) {
		await sandboxControl('POST', '/faults', {
			count: 1,
			status: 429,
			retryAfterSeconds: RETRY_AFTER_SECONDS,
			path: '/clients',
			apiKey,
			after: 1,
		});
	}

	const delivered = async ({ rest, workflowId }: Watching) =>
		countDelivery(changes, await triggerEmissions(rest, workflowId, TRIGGER_NAME));
	for (const line of watching) {
		await waitFor(
			`n8n ${line.version}'s trigger to deliver every change`,
			async () => ((await delivered(line)).lost.length === 0 ? true : undefined),
			{
				timeoutMs: 120_000,
				intervalMs: 2000,
			},
		);
	}
	// One more poll on each line (both at the same second), and time for any execution it starts.
	for (const { version, apiKey } of watching) {
		await waitFor(
			`the next poll on n8n ${version}`,
			async () => ((await pollsOf(apiKey, watchingSince)).length >= 2 ? true : undefined),
			{
				timeoutMs: 45_000,
				intervalMs: 1000,
			},
		);
	}
	await sleep(5000);

	for (const line of watching) {
		const { version } = line;
		expect({ version, ...(await delivered(line)) }).toMatchObject({
			version,
			changes: TOUCHED + CREATED,
			emissions: TOUCHED + CREATED,
			lost: [],
			repeated: [],
			unexpected: [],
		});
		// One execution: the poll waited, then emitted everything; the next started none.
		expect({
			version,
			executions: (await executionsOf(line.rest, line.workflowId)).map(
				(execution) => execution.status,
			),
		}).toEqual({ version, executions: ['success'] });

		const [listing, next, ...later] = await pollsOf(line.apiKey, watchingSince);
		expect({ version, listing: pages(listing), next: pages(next), later }).toEqual({
			version,
			listing: [
				['first page', 200],
				['later page', 429],
				['later page', 200],
				['later page', 200],
			],
			next: [['first page', 200]],
			later: [],
		});
		const [, refused, askedAgain] = listing;
		expect(askedAgain.query.cursor).toBe(refused.query.cursor);
		expect(askedAgain.receivedAt - (refused.answeredAt as number)).toBeGreaterThanOrEqual(
			RETRY_AFTER_SECONDS * 1000,
		);
	}
}, 240_000);
