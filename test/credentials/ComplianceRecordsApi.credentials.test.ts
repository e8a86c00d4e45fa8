import { ComplianceRecordsApi } from '../../credentials/ComplianceRecordsApi.credentials';
import { testCredential } from '../helpers';
import { expectReceived, useSandbox } from '../helpers/sandbox';

const { sandbox } = useSandbox({ apiPath: '/v1' });

const credentialType = new ComplianceRecordsApi();
const test = (apiKey: string, baseUrl = sandbox().baseUrl) =>
	testCredential(credentialType, { baseUrl, apiKey });

describe('Compliance Records API credential', () => {
	it('has the public names: baseUrl and apiKey (a password field)', () => {
		expect(credentialType.name).toBe('complianceRecordsApi');
		expect(credentialType.properties.map((property) => [property.name, property.required])).toEqual(
			[
				['baseUrl', true],
				['apiKey', true],
			],
		);
		expect(credentialType.properties[1].typeOptions).toEqual({ password: true });
	});

	it('Test: GET /firm with the key as a bearer token succeeds', async () => {
		const result = await test(sandbox().apiKey);

		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		const [request] = sandbox().requests();
		expect({ method: request.method, path: request.path, url: request.url }).toEqual({
			method: 'GET',
			path: '/firm',
			url: '/v1/firm',
		});
		expect(request.headers.authorization).toBe(`Bearer ${sandbox().apiKey}`);
		expect(request.headers['accept-version']).toBe('1.0.0');
	});

	it.each([
		['an unknown key', () => 'crs_unknown_key_0000000000'],
		[
			'an expired key',
			() => sandbox().createApiKey({ name: 'Expired', expiresAt: '2021-06-30T00:00:00Z' }),
		],
		[
			'a revoked key',
			() => {
				const key = sandbox().createApiKey({ name: 'Revoked' });
				sandbox().revokeApiKey(key);
				return key;
			},
		],
	])('Test with %s: says the key is invalid, expired or revoked', async (_case, makeKey) => {
		const result = await test(makeKey());

		expect(result).toEqual({
			status: 'Error',
			message:
				'The API key is invalid, expired or revoked. Generate a new one in the firm settings (API services).',
		});
	});

	it('Test against a plain-http remote URL: refused, the key never sent', async () => {
		// 0.0.0.0 reaches the sandbox on this machine (see the transport tests): nothing may arrive.
		const result = await test(sandbox().apiKey, sandbox().baseUrl.replace('127.0.0.1', '0.0.0.0'));

		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Refusing to send credentials to http:\/\/0\.0\.0\.0:\d+: only https:\/\/ is allowed/,
		);
		expect(sandbox().requests()).toEqual([]);
	});

	it('Test sends the key in the Authorization header only, never in the URL', async () => {
		await test(sandbox().apiKey);

		const [request] = sandbox().requests();
		expectReceived(request, { method: 'GET', path: '/firm', bearer: sandbox().apiKey });
		expect(request.url).not.toContain(sandbox().apiKey);
	});
});
