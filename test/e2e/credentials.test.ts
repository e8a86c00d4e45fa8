/**
 * The credential test (the editor's "Retry"/"Test" button on a credential), through the running
 * n8n's REST API exactly as the editor calls it: POST /rest/credentials/test.
 */
import type { N8nRest } from '../helpers/n8n/instance';
import { e2e, sandboxControl, sandboxRequests, signedIn } from './environment';

let rest: N8nRest;

beforeAll(async () => {
	rest = await signedIn();
});

/** Saves an API key credential and runs n8n's credential test on it. */
async function testApiKeyCredential(name: string, data: { baseUrl: string; apiKey: string }) {
	const credential = await rest.request<{ id: string }>('POST', '/credentials', {
		name,
		type: 'complianceRecordsApi',
		data,
	});
	return await rest.request<{ status: string; message: string }>('POST', '/credentials/test', {
		credentials: { id: credential.id, name, type: 'complianceRecordsApi', data },
	});
}

test('the sandbox API key passes, tested with one GET /firm', async () => {
	const { sandbox } = e2e();
	const requestsBefore = (await sandboxRequests()).length;
	const result = await testApiKeyCredential('Good key', {
		baseUrl: sandbox.baseUrl,
		apiKey: sandbox.apiKey,
	});
	expect(result).toMatchObject({ status: 'OK' }); // on failure, the diff shows n8n's message
	const firmRequests = (await sandboxRequests())
		.slice(requestsBefore)
		.filter(
			(request) =>
				request.path === '/firm' && request.headers.authorization === `Bearer ${sandbox.apiKey}`,
		);
	expect(firmRequests).toHaveLength(1);
});

test('an unknown key fails with a message that says what to do', async () => {
	const result = await testApiKeyCredential('Wrong key', {
		baseUrl: e2e().sandbox.baseUrl,
		apiKey: 'crs_not_a_real_key',
	});
	expect(result).toMatchObject({
		status: 'Error',
		message: expect.stringMatching(/invalid, expired or revoked/),
	});
	expect(result.message).not.toContain('crs_not_a_real_key');
});

test('a revoked key fails the same way', async () => {
	const { key } = await sandboxControl<{ key: string }>('POST', '/api-keys', {
		name: 'to be revoked',
	});
	await sandboxControl('POST', '/api-keys/revoke', { key });
	const result = await testApiKeyCredential('Revoked key', {
		baseUrl: e2e().sandbox.baseUrl,
		apiKey: key,
	});
	expect(result).toMatchObject({
		status: 'Error',
		message: expect.stringMatching(/invalid, expired or revoked/),
	});
});

test('a plain http:// address of another machine is refused before the key is sent', async () => {
	const result = await testApiKeyCredential('Insecure address', {
		baseUrl: 'http://compliance.example.com/v1',
		apiKey: 'crs_never_sent',
	});
	expect(result).toMatchObject({ status: 'Error', message: expect.stringMatching(/https:\/\//) });
});
