/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * The package on n8n 1.123.81 and 2.40.7 (see environment.ts): every operation with the API key
 * credential; OAuth2 whose access token expired, refreshed by n8n in a run and in a dropdown; the
 * published trigger on OAuth2 delivering every change of the service exactly once; renewals the
 * authorization server refuses, only a dead credential asking to reconnect; a revoked OAuth2
 * grant asking to reconnect. One file, so that these run in this order: revoking the
 * grant comes last.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { LoggedRequest } from 'compliance-records-sandbox';
import { countDelivery, triggerEmissions, type Change } from '../helpers/n8n/delivery';
import { nodeOutput, waitFor, type ExecutionRun } from '../helpers/n8n/instance';
import { describeEveryOperation } from '../e2e/operations';
import { newApiKeyCredential } from '../helpers/sandboxControl';
import {
	ACTION_NODE,
	line,
	lines,
	type NodeCredentials,
	runOperation,
	runWorkflow,
	sandboxControl,
	sandboxRequests,
	signedIn,
	TOKEN_TTL_SECONDS,
	TRIGGER_NAME,
	VERSIONS,
} from './environment';

/** Waits until any access token issued before now has expired. */
const outliveTokens = () => sleep((TOKEN_TTL_SECONDS + 1) * 1000);

describe.each(VERSIONS)(
	'n8n %s: every operation of the action node, with the API key credential',
	(version) => {
		describeEveryOperation({
			nodeType: ACTION_NODE,
			run: async (workflow) => await runWorkflow(version, workflow),
			newApiKeyCredential: async (name) =>
				await newApiKeyCredential(
					await signedIn(version),
					lines().sandbox.baseUrl,
					`${name} (n8n ${version})`,
				),
			baseUrl: () => lines().sandbox.baseUrl,
			sandboxRequests,
		});
	},
);

/** Runs one operation with a credential (the line's OAuth2 one unless given); returns the run and the requests it made to `path`. */
async function runOn(
	version: string,
	parameters: Record<string, unknown> = { resource: 'firm', operation: 'get' },
	path = '/firm',
	credentials: NodeCredentials = { complianceRecordsOAuth2Api: line(version).oAuth2 },
): Promise<{ run: ExecutionRun; requests: LoggedRequest[] }> {
	const { run, requests } = await runOperation(version, parameters, credentials);
	// The triggers poll /clients meanwhile; this run alone asks for `path`.
	return { run, requests: requests.filter((request) => request.path === path) };
}

const runWithOAuth2 = (version: string, parameters?: Record<string, unknown>, path?: string) =>
	runOn(version, parameters, path);

const bearer = (request: LoggedRequest) => String(request.headers.authorization);

describe.each(VERSIONS)('n8n %s: OAuth2 with access tokens that expire', (version) => {
	test('an expired token is refreshed once, saved, and the request sent again; the next run uses the saved token', async () => {
		const first = await runWithOAuth2(version);
		expect(nodeOutput(first.run, 'Operation')).toEqual([
			expect.objectContaining({ object: 'firm' }),
		]);
		const stored = first.requests.at(-1) as LoggedRequest;
		await outliveTokens();

		const expired = await runWithOAuth2(version);
		const next = await runWithOAuth2(version);

		expect(nodeOutput(expired.run, 'Operation')).toEqual([
			expect.objectContaining({ object: 'firm' }),
		]);
		expect(
			expired.requests.map((request) => [bearer(request) === bearer(stored), request.status]),
		).toEqual([
			[true, 401],
			[false, 200],
		]);
		expect(next.requests.map((request) => [bearer(request), request.status])).toEqual([
			[bearer(expired.requests[1]), 200],
		]);
	});

	test('an error of the service says what the service said, as with the API key', async () => {
		const { run, requests } = await runWithOAuth2(
			version,
			{ resource: 'client', operation: 'get', clientId: 'no-such-client' },
			'/clients/no-such-client',
		);

		const answered = requests.at(-1); // after a refresh, if its token had expired meanwhile
		expect(answered?.status).toBe(404);
		expect(run.data.resultData.error?.message).toBe(
			'Client "no-such-client" was not found [item 0]',
		);
		expect(run.data.resultData.error?.description).toContain(String(answered?.errorMessage));
	});

	test("a dropdown (the editor's Partner list) refreshes an expired token the same way", async () => {
		await outliveTokens();
		const before = (await sandboxRequests()).length;

		const options = await (
			await signedIn(version)
		).request<Array<{ name: string; value: string }>>('POST', '/dynamic-node-parameters/options', {
			nodeTypeAndVersion: { name: ACTION_NODE, version: 1 },
			methodName: 'getPartners',
			path: 'additionalFields.partnerId',
			currentNodeParameters: { authentication: 'oAuth2', resource: 'client', operation: 'create' },
			credentials: { complianceRecordsOAuth2Api: line(version).oAuth2 },
		});

		expect(options.length).toBeGreaterThan(0);
		const requests = (await sandboxRequests())
			.slice(before)
			.filter((request) => request.path === '/firm');
		expect(requests.map((request) => request.status)).toEqual([401, 200]);
	});
});

describe.each(VERSIONS)(
	"n8n %s: the service's words, whatever the shape of its error body",
	(version) => {
		const missing = { resource: 'client', operation: 'get', clientId: 'no-such-client' };
		let apiKey: NodeCredentials;

		beforeAll(async () => {
			const { id, name } = await newApiKeyCredential(
				await signedIn(version),
				lines().sandbox.baseUrl,
				`Error shapes (n8n ${version})`,
			);
			apiKey = { complianceRecordsApi: { id, name } };
		});
		afterEach(async () => await sandboxControl('POST', '/error-format', { format: 'message' }));

		test.each(['problem', 'errors', 'nested', 'text', 'html'])(
			'%s, with an API key (the answer comes back whole)',
			async (format) => {
				await sandboxControl('POST', '/error-format', { format });

				const { run, requests } = await runOn(version, missing, '/clients/no-such-client', apiKey);

				expect(run.data.resultData.error?.message).toBe(
					'Client "no-such-client" was not found [item 0]',
				);
				expect(run.data.resultData.error?.description).toContain(
					String(requests.at(-1)?.errorMessage),
				);
			},
		);

		test.each(['problem', 'errors', 'nested'])(
			'%s, with OAuth2 (n8n throws the answer)',
			async (format) => {
				await sandboxControl('POST', '/error-format', { format });

				const { run, requests } = await runWithOAuth2(version, missing, '/clients/no-such-client');

				expect(run.data.resultData.error?.message).toBe(
					'Client "no-such-client" was not found [item 0]',
				);
				expect(run.data.resultData.error?.description).toContain(
					String(requests.at(-1)?.errorMessage),
				);
			},
		);
	},
);

describe('the published trigger, on OAuth2, on both lines', () => {
	test('delivers every change made while it watched exactly once, refreshing its token at each poll', async () => {
		const { watchingSince } = lines();
		const changesSince = async () =>
			(await sandboxControl<Change[]>('GET', '/changes')).filter(
				(change) => Date.parse(change.lastModifiedAt) > watchingSince,
			);
		// The operations above created and changed clients; one more change, by the service itself.
		const created = (await changesSince()).find((change) => change.cause === 'created') as Change;
		await sandboxControl('POST', `/clients/${created.clientId}/aml-determination`, {
			riskLevel: 'LOW',
		});
		const changes = await changesSince();
		expect(changes.length).toBeGreaterThan(5);

		for (const version of VERSIONS) {
			const rest = await signedIn(version);
			const { workflowId } = line(version).trigger;
			const delivered = () =>
				triggerEmissions(rest, workflowId, TRIGGER_NAME).then((emissions) =>
					countDelivery(changes, emissions),
				);
			await waitFor(
				`n8n ${version}'s trigger to deliver every change`,
				async () => ((await delivered()).lost.length === 0 ? true : undefined),
				{
					timeoutMs: 150_000,
					intervalMs: 5000,
				},
			);
		}
		await sleep(65_000); // one more poll on each line: nothing new to deliver, nothing twice

		for (const version of VERSIONS) {
			const emissions = await triggerEmissions(
				await signedIn(version),
				line(version).trigger.workflowId,
				TRIGGER_NAME,
			);
			expect({ version, ...countDelivery(changes, emissions) }).toMatchObject({
				version,
				lost: [],
				repeated: [],
				unexpected: [],
			});
		}
		const polls = (await sandboxRequests()).filter(
			(request) => request.path === '/clients' && request.query.sinceModifiedAt,
		);
		expect(polls.filter((request) => request.status === 401).length).toBeGreaterThanOrEqual(
			VERSIONS.length,
		);
	});
});

describe.each(VERSIONS)('n8n %s: a renewal the authorization server refuses', (version) => {
	afterEach(async () => await sandboxControl('DELETE', '/oauth2/faults'));

	test('only a dead credential asks to reconnect; a brief refusal or a limit asks to wait', async () => {
		const { requests } = await runWithOAuth2(version);
		// The faults answer this credential's renewals alone (the triggers renew theirs meanwhile).
		const accessToken = bearer(requests.at(-1) as LoggedRequest).replace(/^Bearer /, '');
		await outliveTokens();
		const answers = [
			[{ error: 'invalid_client' }, 'The service refused the OAuth2 connection [item 0]', true],
			[
				{ error: 'temporarily_unavailable', status: 400 },
				'The authorization server could not renew access [item 0]',
				false,
			],
			[
				{ error: 'server_error', status: 400 },
				'The authorization server could not renew access [item 0]',
				false,
			],
			[
				{ error: 'slow_down' },
				'The authorization server is receiving too many requests [item 0]',
				false,
			],
		] as const;

		const told = [];
		for (const [fault] of answers) {
			await sandboxControl('POST', '/oauth2/faults', { count: 1, accessToken, ...fault });
			const { error } = (await runWithOAuth2(version)).run.data.resultData;
			told.push([error?.message, /reconnect/.test(String(error?.description))]);
		}

		expect(told).toEqual(answers.map(([, message, reconnect]) => [message, reconnect]));
		// Nothing was renewed nor lost: the next run renews the token and is answered.
		const next = await runWithOAuth2(version);
		expect(nodeOutput(next.run, 'Operation')).toEqual([
			expect.objectContaining({ object: 'firm' }),
		]);
	});
});

describe('a revoked OAuth2 grant, on both lines', () => {
	afterAll(async () => {
		// Connected again, as the user would.
		for (const version of VERSIONS) {
			const rest = await signedIn(version);
			for (const { id } of [line(version).oAuth2, line(version).trigger.oAuth2])
				await rest.connectOAuth2(id);
		}
	});

	test('asks to reconnect the credential', async () => {
		await sandboxControl('POST', '/oauth2/revoke-grants');
		await outliveTokens();

		for (const version of VERSIONS) {
			const { run, requests } = await runWithOAuth2(version);

			const { error } = run.data.resultData;
			expect(requests.map((request) => request.status)).toEqual([401]);
			// n8n 2.x says so itself; on 1.x the package does.
			expect({ version, message: error?.message, description: error?.description }).toEqual(
				version.startsWith('1.')
					? {
							version,
							message: 'The service refused the OAuth2 connection [item 0]',
							description: expect.stringMatching(
								/^The authorization server said: .+ Access could not be renewed\. Open the 'Compliance Records OAuth2 API' credential and reconnect it\.$/,
							),
						}
					: {
							version,
							message: `The credential "${line(version).oAuth2.name}" needs to be reconnected.`,
							description: expect.any(String),
						},
			);
		}
	});
});
