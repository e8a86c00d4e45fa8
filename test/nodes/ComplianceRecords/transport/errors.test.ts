/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
import { ERROR_FORMATS, type ErrorFormat } from 'compliance-records-sandbox';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { inspect } from 'node:util';

import type { ServiceAnswer } from '../../../../nodes/ComplianceRecords/transport/answers';
import {
	type ErrorContext,
	requestError,
} from '../../../../nodes/ComplianceRecords/transport/errors';
import { ErrorStatus } from '../../../../nodes/ComplianceRecords/transport/failures';
import { connectOAuth2, CredentialStore, runNode } from '../../../helpers';
import { answeredMessage, serviceSaid, useSandbox } from '../../../helpers/sandbox';
import { clientIds, serviceCall } from '../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 3 });

afterEach(() => sandbox().setErrorFormat('message'));

const withKey = (apiKey: string) =>
	new CredentialStore({ complianceRecordsApi: { baseUrl: sandbox().baseUrl, apiKey } });

const run = (parameters: INodeParameters, store = credentials(), input?: IDataObject[]) =>
	runNode({ credentials: store, parameters, input });

const getClient = (clientId: string): INodeParameters => ({
	resource: 'client',
	operation: 'get',
	clientId,
});
const createClient = (additionalFields: INodeParameters = {}): INodeParameters => ({
	resource: 'client',
	operation: 'create',
	status: 'PROSPECT',
	entityType: 'individual',
	firstName: 'Ada',
	lastName: 'Lovelace',
	additionalFields,
});

async function firmClientIds(): Promise<string[]> {
	const ids = await clientIds(sandbox());
	sandbox().clearRequests();
	return ids;
}

/** The key must not be in the error: its message, description, what n8n stores, nor in memory. */
function expectNoSecret(error: unknown, secret: string) {
	const { message, description } = error as { message: string; description?: string };
	expect(message).not.toContain(secret);
	expect(description ?? '').not.toContain(secret);
	expect(JSON.stringify(error)).not.toContain(secret);
	expect(inspect(error, { depth: 20, showHidden: true })).not.toContain(secret);
}

describe('Errors of the service, as the user sees them', () => {
	it('400: says what the service refused, with its words', async () => {
		const result = await run(createClient({ partnerId: 'no-such-partner' }));

		expect(result.error?.message).toBe('The service refused the request [item 0]');
		expect(result.error?.description).toBe(
			`${serviceSaid(sandbox())} Correct the value the service names, then try again.`,
		);
		expect((result.error as { httpCode?: string }).httpCode).toBe('400');
		expect((result.error as { failure?: unknown }).failure).toBeUndefined();
		expectNoSecret(result.error, sandbox().apiKey);
	});

	it.each([
		['an unknown key', () => 'crs_not_a_key_at_all_1234567890'],
		[
			'a revoked key',
			() => {
				const key = sandbox().createApiKey({ name: 'Revoked in the test' });
				sandbox().revokeApiKey(key);
				return key;
			},
		],
		[
			'an expired key',
			() => sandbox().createApiKey({ name: 'Expired', expiresAt: '2020-01-01T00:00:00Z' }),
		],
	])(
		'401 with %s: says the key is refused and how to fix it, after one request',
		async (_case, makeKey) => {
			const key = makeKey();

			const result = await run(getClient('any'), withKey(key));

			expect(result.error?.message).toBe('The service refused the API key [item 0]');
			expect(result.error?.description).toContain(serviceSaid(sandbox()));
			expect(result.error?.description).toContain(
				"The key is invalid, expired or revoked. Generate a new key in the service's web app (firm settings, API services) and paste it into the 'Compliance Records API' credential.",
			);
			expect((result.error as { failure?: unknown }).failure).toEqual({
				cause: 'credential-invalid',
			});
			expect(sandbox().requests()).toHaveLength(1);
			expectNoSecret(result.error, key);
		},
	);

	it('403: says the credential is not allowed (a read-only key creating a client)', async () => {
		const key = sandbox().createApiKey({ name: 'Read only', readOnly: true });

		const result = await run(createClient(), withKey(key));

		expect(result.error?.message).toBe('This credential is not allowed to do this [item 0]');
		expect(result.error?.description).toContain(serviceSaid(sandbox()));
		expect((result.error as { failure?: unknown }).failure).toBeUndefined();
		expectNoSecret(result.error, key);
	});

	it('404: names the missing record, its ID and the field it came from (update)', async () => {
		const result = await run({
			resource: 'client',
			operation: 'update',
			clientId: 'gone-1',
			updateFields: { referenceNumber: 'X' },
		});

		expect(result.error?.message).toBe('Client "gone-1" was not found [item 0]');
		expect(result.error?.description).toContain(serviceSaid(sandbox()));
		expect(result.error?.description).toContain(
			"Check 'Client ID': it may be mistyped, or belong to another firm than the credential's.",
		);
		expectNoSecret(result.error, sandbox().apiKey);
	});

	it('404 through OAuth2: explained the same way', async () => {
		const store = credentials();
		await connectOAuth2(store);

		const result = await run({ ...getClient('gone-2'), authentication: 'oAuth2' }, store);

		expect(result.error?.message).toBe('Client "gone-2" was not found [item 0]');
		expect(result.error?.description).toContain(serviceSaid(sandbox()));
		expect(sandbox().requests()).toHaveLength(1);
	});

	it("404: another firm's client is not found either", async () => {
		const [otherId] = await clientIds({ ...sandbox(), apiKey: sandbox().otherFirm.apiKey });

		const result = await run(getClient(otherId));

		expect(result.error?.message).toBe(`Client "${otherId}" was not found [item 0]`);
		expect(result.error?.description).toContain(serviceSaid(sandbox()));
	});

	it('409: says the reference number is already in use, on create and on update', async () => {
		const [first, second] = await firmClientIds();
		await serviceCall(sandbox(), 'PATCH', `/clients/${first}`, { referenceNumber: 'TAKEN-1' });

		const created = await run(createClient({ referenceNumber: 'TAKEN-1' }));
		const createAnswer = answeredMessage(sandbox());
		const updated = await run({
			resource: 'client',
			operation: 'update',
			clientId: second,
			updateFields: { referenceNumber: 'TAKEN-1' },
		});
		const updateAnswer = answeredMessage(sandbox());

		for (const [result, answer] of [
			[created, createAnswer],
			[updated, updateAnswer],
		] as const) {
			expect(result.error?.message).toBe('The reference number is already in use [item 0]');
			expect(result.error?.description).toContain(answer);
			expect(result.error?.description).toContain(
				"Another client of the firm has this reference number. Use a different 'Reference Number'.",
			);
		}
	});

	it.each([
		['seconds', 'seconds'],
		['an HTTP date', 'date'],
	] as const)(
		'429 with a Retry-After in %s longer than the node waits: says how long it asked, at once',
		async (_case, retryAfterAs) => {
			sandbox().injectFaults({ count: 1, status: 429, retryAfterSeconds: 3600, retryAfterAs });

			const result = await run({ resource: 'firm', operation: 'get' });

			expect(result.error?.message).toBe('The service is receiving too many requests [item 0]');
			expect(result.error?.description).toBe(
				`${serviceSaid(sandbox())} It asked to wait 60 minutes before the next request; the node waits at most 60 seconds. ` +
					"Wait 60 minutes and run the node again, or space the requests out with 'Batching' under 'Request Options' in the node's settings.",
			);
			expect((result.error as { failure?: unknown }).failure).toEqual({
				cause: 'rate-limited',
				retryAfterMs: 3_600_000,
			});
			expect(sandbox().requests()).toHaveLength(1);
		},
	);

	it('500: says the service could not complete it, with its words, after one request', async () => {
		sandbox().injectFaults({ count: 1, status: 500, path: '/clients' });

		const result = await run({ resource: 'client', operation: 'getAll', returnAll: true });

		expect(result.error?.message).toBe(
			'The service could not complete the request (HTTP 500) [item 0]',
		);
		expect(result.error?.description).toBe(
			`${serviceSaid(sandbox())} Try again in a few minutes, or turn on 'Retry On Fail' in the node's settings.`,
		);
		expect((result.error as { failure?: unknown }).failure).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expectNoSecret(result.error, sandbox().apiKey);
	});

	it('503 every time: says how often the node tried, and that the service is unavailable', async () => {
		sandbox().injectFaults({ count: 5, status: 503, retryAfterSeconds: 0, path: '/clients' });

		const result = await run({ resource: 'client', operation: 'getAll', returnAll: true });

		expect(result.error?.message).toBe(
			'The service could not complete the request (HTTP 503) [item 0]',
		);
		expect(result.error?.description).toBe(
			`${serviceSaid(sandbox())} The node sent the request 5 times, waiting between tries, and none went through. ` +
				"Try again in a few minutes, or turn on 'Retry On Fail' in the node's settings.",
		);
		expect((result.error as { failure?: unknown }).failure).toEqual({
			cause: 'temporarily-unavailable',
		});
		expect(sandbox().requests()).toHaveLength(5);
	});

	it('a service that refuses connections: says so and where to look, the key nowhere in the error', async () => {
		const unreachable = new CredentialStore({
			complianceRecordsApi: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: sandbox().apiKey },
		});

		const result = await run({ resource: 'firm', operation: 'get' }, unreachable);

		expect(result.error?.message).toBe('The service refused the connection [item 0]');
		expect(result.error?.description).toBe(
			"The node sent the request 5 times, waiting between tries, and none went through. Check the credential's 'Base URL' and that the service is up, then run the node again.",
		);
		expect((result.error as { failure?: unknown }).failure).toEqual({
			cause: 'temporarily-unavailable',
		});
		expectNoSecret(result.error, sandbox().apiKey);
	});

	it('Continue On Fail: one error item per failed input item, the others processed', async () => {
		const [first, second] = await firmClientIds();

		const result = await runNode({
			credentials: credentials(),
			parameters: getClient('={{ $json.id }}'),
			input: [{ id: first }, { id: 'missing-7' }, { id: second }, { id: '..' }],
			continueOnFail: true,
		});

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(4);
		expect(result.items[0].json.id).toBe(first);
		expect(result.items[1].error?.message).toBe('Client "missing-7" was not found [item 1]');
		expect(result.items[1].error?.description).toContain(serviceSaid(sandbox(), 1));
		expect(result.items[2].json.id).toBe(second);
		expect(result.items[3].error?.message).toBe(`'Client ID' ".." is not a valid ID [item 3]`);
		expect(
			sandbox()
				.requests()
				.map((request) => request.path),
		).toEqual([`/clients/${first}`, '/clients/missing-7', `/clients/${second}`]);
	});
});

describe("The service's words, whatever the shape of its error body", () => {
	const refusedCreate = createClient({ partnerId: 'no-such-partner' });

	it.each(ERROR_FORMATS.filter((format) => format !== 'html'))(
		'%s body, with an API key',
		async (format: ErrorFormat) => {
			sandbox().setErrorFormat(format);

			const result = await run(refusedCreate);

			expect(result.error?.message).toBe('The service refused the request [item 0]');
			expect(result.error?.description).toContain(serviceSaid(sandbox()));
		},
	);

	it.each(['problem', 'errors', 'nested'] as const)(
		'%s body, through OAuth2 (thrown by n8n, not returned)',
		async (format) => {
			const store = credentials();
			await connectOAuth2(store);
			sandbox().setErrorFormat(format);

			const result = await run({ ...refusedCreate, authentication: 'oAuth2' }, store);

			expect(result.error?.message).toBe('The service refused the request [item 0]');
			expect(result.error?.description).toContain(serviceSaid(sandbox()));
		},
	);

	it("an HTML page (a proxy's): summarised with its title and words, never dumped", async () => {
		sandbox().setErrorFormat('html');
		sandbox().injectFaults({ count: 1, status: 500 });

		const result = await run({ resource: 'firm', operation: 'get' });

		expect(result.error?.message).toBe(
			'The service could not complete the request (HTTP 500) [item 0]',
		);
		expect(result.error?.description).toMatch(
			`The service said: 500 Internal Server Error: ${answeredMessage(sandbox())} (an HTML page, likely from a proxy or gateway in front of the service). `,
		);
		expect(result.error?.description).not.toMatch(/[<>{}]/);
	});

	it('an error in a list page is explained the same way (Get Many, problem details)', async () => {
		sandbox().setErrorFormat('problem');
		sandbox().injectFaults({ count: 1, status: 500, path: '/individuals' });

		const result = await run({ resource: 'individual', operation: 'getAll', returnAll: true });

		expect(result.error?.message).toBe(
			'The service could not complete the request (HTTP 500) [item 0]',
		);
		expect(result.error?.description).toContain(serviceSaid(sandbox()));
	});
});

describe('What an error must never show', () => {
	const node = {
		id: 'n',
		name: 'Compliance Records',
		type: 't',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
	};
	const answerError = (answer: ServiceAnswer, context: ErrorContext) =>
		requestError(node, new ErrorStatus(answer), context);

	it('a credential the service echoes back', () => {
		const error = answerError(
			{
				status: 401,
				body: { message: 'Key sk_live_123456 is not valid (Authorization: Bearer sk_live_123456)' },
				headers: {},
			},
			{ authentication: 'apiKey', secrets: ['sk_live_123456'] },
		);

		expect(error.message).toBe('The service refused the API key');
		expect(error.description).toMatch(
			/^The service said: Key \*\*hidden\*\* is not valid \(Authorization: Bearer \*\*hidden\*\*\)\. /,
		);
		expectNoSecret(error, 'sk_live_123456');
	});

	it('more than 300 characters of it, nor any of it in the title', () => {
		const error = answerError(
			{ status: 400, body: `${'x'.repeat(1000)}`, headers: {} },
			{ authentication: 'apiKey', secrets: [] },
		);

		expect(error.message).toBe('The service refused the request');
		expect(error.description).toBe(
			`The service said: ${'x'.repeat(299)}… Correct the value the service names, then try again.`,
		);
	});
});
