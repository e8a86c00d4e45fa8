/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { inspect } from 'node:util';

import { serviceError } from '../../../../nodes/ComplianceRecords/transport/errors';
import { connectOAuth2, CredentialStore, runNode } from '../../../helpers';
import { answeredMessage, useSandbox } from '../../../helpers/sandbox';
import { clientIds, serviceGet } from '../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 3 });

const withKey = (apiKey: string) =>
	new CredentialStore({ complianceRecordsApi: { baseUrl: sandbox().baseUrl, apiKey } });

const run = (parameters: INodeParameters, store = credentials(), input?: IDataObject[]) =>
	runNode({ credentials: store, parameters, input });

const getClient = (clientId: string): INodeParameters => ({ resource: 'client', operation: 'get', clientId });
const createClient = (additionalFields: INodeParameters = {}): INodeParameters => ({
	resource: 'client',
	operation: 'create',
	status: 'PROSPECT',
	entityType: 'individual',
	firstName: 'Ada',
	lastName: 'Lovelace',
	additionalFields,
});

let ids: string[];
beforeAll(async () => {
	ids = await clientIds(sandbox());
});

/** The key must not be in the error: its message, description, what n8n stores, nor in memory. */
function expectNoSecret(error: unknown, secret: string) {
	const { message, description } = error as { message: string; description?: string };
	expect(message).not.toContain(secret);
	expect(description ?? '').not.toContain(secret);
	expect(JSON.stringify(error)).not.toContain(secret);
	expect(inspect(error, { depth: 20, showHidden: true })).not.toContain(secret);
}

describe('Errors of the service, as the user sees them', () => {
	it('400: says what the service rejected, with its message', async () => {
		const result = await run(createClient({ partnerId: 'no-such-partner' }));

		expect(result.error?.message).toBe(`The service rejected the request: ${answeredMessage(sandbox())}`);
		expect(result.error?.description).toBe('Correct the field the service names and run the node again.');
		expect((result.error as { httpCode?: string }).httpCode).toBe('400');
		expectNoSecret(result.error, sandbox().apiKey);
	});

	it.each([
		['an unknown key', () => 'crs_not_a_key_at_all_1234567890'],
		['a revoked key', () => {
			const key = sandbox().createApiKey({ name: 'Revoked in the test' });
			sandbox().revokeApiKey(key);
			return key;
		}],
		['an expired key', () => sandbox().createApiKey({ name: 'Expired', expiresAt: '2020-01-01T00:00:00Z' })],
	])('401 with %s: says the key is refused and how to fix it, after one request', async (_case, makeKey) => {
		const key = makeKey();

		const result = await run(getClient('any'), withKey(key));

		expect(result.error?.message).toBe(`The service refused the API key: ${answeredMessage(sandbox())}`);
		expect(result.error?.description).toBe(
			"The key is invalid, expired or revoked. Generate a new key in the service's web app (firm settings, API services) and paste it into the Compliance Records API credential.",
		);
		expect(sandbox().requests()).toHaveLength(1);
		expectNoSecret(result.error, key);
	});

	it('403: says the credential may not do this (a read-only key creating a client)', async () => {
		const key = sandbox().createApiKey({ name: 'Read only', readOnly: true });

		const result = await run(createClient(), withKey(key));

		expect(result.error?.message).toBe(`This credential may not do this: ${answeredMessage(sandbox())}`);
		expectNoSecret(result.error, key);
	});

	it('404: names the missing record and its ID (update)', async () => {
		const result = await run({ resource: 'client', operation: 'update', clientId: 'gone-1', updateFields: { referenceNumber: 'X' } });

		expect(result.error?.message).toBe(`Client "gone-1" was not found: ${answeredMessage(sandbox())}`);
		expect(result.error?.description).toBe(
			"Check the Client ID: it may be mistyped, or belong to another firm than the credential's.",
		);
		expectNoSecret(result.error, sandbox().apiKey);
	});

	it('404 through OAuth2: mapped the same way', async () => {
		const store = credentials();
		await connectOAuth2(store);

		const result = await run({ ...getClient('gone-2'), authentication: 'oAuth2' }, store);

		expect(result.error?.message).toBe(`Client "gone-2" was not found: ${answeredMessage(sandbox())}`);
		expect(sandbox().requests()).toHaveLength(1);
	});

	it("404: another firm's client is not found either", async () => {
		const others = await serviceGet<{ data: Array<{ id: string }> }>(
			{ ...sandbox(), apiKey: sandbox().otherFirm.apiKey },
			'/clients',
		);
		sandbox().clearRequests();
		const otherId = others.data[0].id;

		const result = await run(getClient(otherId));

		expect(result.error?.message).toBe(`Client "${otherId}" was not found: ${answeredMessage(sandbox())}`);
	});

	it('409: says the reference number is already in use, on create and on update', async () => {
		const [first, second] = ids;
		await run({ resource: 'client', operation: 'update', clientId: first, updateFields: { referenceNumber: 'TAKEN-1' } });

		const created = await run(createClient({ referenceNumber: 'TAKEN-1' }));
		const createAnswer = answeredMessage(sandbox());
		const updated = await run({ resource: 'client', operation: 'update', clientId: second, updateFields: { referenceNumber: 'TAKEN-1' } });
		const updateAnswer = answeredMessage(sandbox());

		for (const [result, answer] of [[created, createAnswer], [updated, updateAnswer]] as const) {
			expect(result.error?.message).toBe(`The reference number is already in use: ${answer}`);
			expect(result.error?.description).toBe(
				'Another client of the firm already has this reference number. Use a different Reference Number.',
			);
			expectNoSecret(result.error, sandbox().apiKey);
		}
	});

	it('429: says the service is busy and how long to wait', async () => {
		sandbox().injectFaults({ count: 1, status: 429, retryAfterSeconds: 7 });

		const result = await run({ resource: 'firm', operation: 'get' });

		expect(result.error?.message).toBe(`The service is receiving too many requests: ${answeredMessage(sandbox())}`);
		expect(result.error?.description).toBe("Wait 7 seconds and run again, or turn on Retry On Fail in the node's settings.");
		expectNoSecret(result.error, sandbox().apiKey);
	});

	it.each([500, 503] as const)('%s: says the service failed, with its message', async (status) => {
		sandbox().injectFaults({ count: 1, status, path: '/clients' });

		const result = await run({ resource: 'client', operation: 'getAll', returnAll: true });

		expect(result.error?.message).toBe(`The service failed to process the request (HTTP ${status}): ${answeredMessage(sandbox())}`);
		expect(result.error?.description).toBe(
			"This is a problem on the service's side. Try again later, or turn on Retry On Fail in the node's settings.",
		);
		expectNoSecret(result.error, sandbox().apiKey);
	});

	it('a service that cannot be reached: n8n says so, the key is nowhere in the error', async () => {
		const unreachable = new CredentialStore({
			complianceRecordsApi: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: sandbox().apiKey },
		});

		const result = await run({ resource: 'firm', operation: 'get' }, unreachable);

		expect(result.error?.message).toBe('The service refused the connection - perhaps it is offline');
		const { message, description } = result.error as { message: string; description?: string };
		expect(`${message} ${description ?? ''} ${JSON.stringify(result.error)}`).not.toContain(sandbox().apiKey);
	});

	it('Continue On Fail: one error item per failed input item, the others processed', async () => {
		const [first, second] = ids;

		const result = await runNode({
			credentials: credentials(),
			parameters: getClient('={{ $json.id }}'),
			input: [{ id: first }, { id: 'missing-7' }, { id: second }, { id: '..' }],
			continueOnFail: true,
		});

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(4);
		expect(result.items[0].json.id).toBe(first);
		expect(result.items[1].error?.message).toBe(`Client "missing-7" was not found: ${answeredMessage(sandbox(), 1)}`);
		expect(result.items[2].json.id).toBe(second);
		expect(result.items[3].error?.message).toBe('Client ID ".." is not a valid ID');
		expect(sandbox().requests().map((request) => request.path)).toEqual([`/clients/${first}`, '/clients/missing-7', `/clients/${second}`]);
	});
});

describe('serviceError', () => {
	it('hides a credential the service echoes back', () => {
		const node = { id: 'n', name: 'Compliance Records', type: 't', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };

		const error = serviceError(
			node,
			{ status: 401, body: { message: 'Key sk_live_123456 is not valid (Authorization: Bearer sk_live_123456)' } },
			{ authentication: 'apiKey', secrets: ['sk_live_123456'] },
		);

		expect(error.message).toBe('The service refused the API key: Key **hidden** is not valid (Authorization: Bearer **hidden**)');
		expectNoSecret(error, 'sk_live_123456');
	});
});
