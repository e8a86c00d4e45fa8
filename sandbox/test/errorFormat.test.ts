import type { ErrorFormat, Sandbox } from '../src';
import { ERROR_FORMATS, startSandbox } from '../src';
import type { ApiClient, Reply } from './helpers';
import { apiClient, newIndividualClient, send, tokenRequest } from './helpers';

/** One error the API answers, and what its answer carries whatever the format. */
interface ErrorCase {
	name: string;
	request: () => Promise<Reply>;
	status: number;
	code: string;
	title: string;
	field?: string;
	message: RegExp;
	headers?: Record<string, string>;
}

describe("error formats (the shape of the API's error answers)", () => {
	let sandbox: Sandbox;
	let api: ApiClient;
	let controls: string;
	beforeAll(async () => {
		sandbox = await startSandbox({ clients: 2, controls: true });
		api = apiClient(sandbox);
		controls = `${new URL(sandbox.baseUrl).origin}/__sandbox`;
		expect(
			(await api.post('/clients', newIndividualClient({ referenceNumber: 'TAKEN' }))).status,
		).toBe(201);
	});
	afterEach(() => {
		sandbox.setErrorFormat('message');
		sandbox.clearFaults();
	});
	afterAll(() => sandbox.close());

	const cases: ErrorCase[] = [
		{
			name: 'unknown id',
			request: () => api.get('/clients/nobody'),
			status: 404,
			code: 'NOT_FOUND',
			title: 'Not Found',
			message: /^No client with id 'nobody' in your firm$/,
		},
		{
			name: 'a required field left out',
			request: () =>
				api.post(
					'/clients',
					newIndividualClient({ entity: { object: 'individual', firstName: 'Ada' } }),
				),
			status: 400,
			code: 'BAD_REQUEST',
			title: 'Bad Request',
			field: 'entity.lastName',
			message: /^entity\.lastName is required$/,
		},
		{
			name: 'a query parameter out of range',
			request: () => api.get('/clients?limit=0'),
			status: 400,
			code: 'BAD_REQUEST',
			title: 'Bad Request',
			field: 'limit',
			message: /^limit must be a whole number from 1 to 200/,
		},
		{
			name: 'a taken reference number',
			request: () => api.post('/clients', newIndividualClient({ referenceNumber: 'TAKEN' })),
			status: 409,
			code: 'CONFLICT',
			title: 'Conflict',
			field: 'referenceNumber',
			message: /^referenceNumber 'TAKEN' is already used/,
		},
		{
			name: 'missing credentials',
			request: () => send(`${sandbox.baseUrl}/firm`, { headers: { 'accept-version': '1.0.0' } }),
			status: 401,
			code: 'UNAUTHORIZED',
			title: 'Unauthorized',
			message:
				/^Missing credentials: send the header Authorization: Bearer <API key or access token>$/,
			headers: { 'www-authenticate': 'Bearer realm="compliance-records"' },
		},
		{
			name: 'a method the path does not take',
			request: () => api.request('DELETE', '/clients'),
			status: 405,
			code: 'METHOD_NOT_ALLOWED',
			title: 'Method Not Allowed',
			message: /^DELETE is not allowed on \/clients/,
			headers: { allow: 'GET, POST' },
		},
		{
			name: 'a body not sent as JSON',
			request: () => api.request('POST', '/clients', undefined, { 'content-type': 'text/plain' }),
			status: 415,
			code: 'UNSUPPORTED_MEDIA_TYPE',
			title: 'Unsupported Media Type',
			message: /^Content-Type must be application\/json/,
		},
		{
			name: 'an injected fault',
			request: () => {
				sandbox.injectFaults({ count: 1, status: 429, retryAfterSeconds: 3 });
				return api.get('/firm');
			},
			status: 429,
			code: 'TOO_MANY_REQUESTS',
			title: 'Too Many Requests',
			message: /^Too many requests/,
			headers: { 'retry-after': '3' },
		},
	];

	/** The body each format must carry for `error`, whose message `message` is the log's. */
	const expectedBody: Record<
		ErrorFormat,
		(error: ErrorCase, message: string) => { contentType: string; check: (reply: Reply) => void }
	> = {
		message: (_, message) => ({
			contentType: 'application/json; charset=utf-8',
			check: (reply) => expect(reply.body).toStrictEqual({ message }),
		}),
		nested: ({ code }, message) => ({
			contentType: 'application/json; charset=utf-8',
			check: (reply) => expect(reply.body).toStrictEqual({ error: { code, message } }),
		}),
		errors: ({ code, field }, message) => ({
			contentType: 'application/json; charset=utf-8',
			check: (reply) =>
				expect(reply.body).toStrictEqual({
					errors: [field === undefined ? { code, message } : { code, message, field }],
				}),
		}),
		problem: ({ status, title }, message) => ({
			contentType: 'application/problem+json',
			check: (reply) =>
				expect(reply.body).toStrictEqual({ type: 'about:blank', title, status, detail: message }),
		}),
		text: (_, message) => ({
			contentType: 'text/plain; charset=utf-8',
			check: (reply) => expect(reply.body).toBe(message),
		}),
		html: ({ status, title }, message) => ({
			contentType: 'text/html; charset=utf-8',
			check: (reply) => {
				const page = reply.body as string;
				expect(page).toMatch(/^<!DOCTYPE html>\n<html lang="en">\n<head>/);
				expect(page).toContain(`<title>${status} ${title}</title>`);
				expect(page).toMatch(/<style>[^<]+<\/style>/);
				expect(page).toContain(`<h1>${status} ${title}</h1>`);
				const escaped = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
				expect(page).toContain(`<p>${escaped}</p>`);
				expect(page).toMatch(/<footer>[^<]+<\/footer>\s*<\/main>\s*<\/body>\s*<\/html>\s*$/);
			},
		}),
	};

	it.each(ERROR_FORMATS)(
		'%s: every kind of error answers in it, with its headers, and the log keeps the message',
		async (format) => {
			sandbox.setErrorFormat(format);
			for (const error of cases) {
				sandbox.clearRequests();
				const reply = await error.request();
				const [logged] = sandbox.requests();
				expect({ case: error.name, status: reply.status, loggedStatus: logged.status }).toEqual({
					case: error.name,
					status: error.status,
					loggedStatus: error.status,
				});
				const message = logged.errorMessage!;
				expect(message).toMatch(error.message);
				const expected = expectedBody[format](error, message);
				expect(reply.headers.get('content-type')).toBe(expected.contentType);
				expected.check(reply);
				for (const [name, value] of Object.entries(error.headers ?? {}))
					expect(reply.headers.get(name)).toBe(value);
			}
		},
	);

	it('html escapes the message, so the page shows it as written', async () => {
		sandbox.setErrorFormat('html');
		const reply = await send(`${sandbox.baseUrl}/firm`, { headers: { 'accept-version': '1.0.0' } });
		expect(reply.body).toContain('Bearer &lt;API key or access token&gt;</p>');
		expect(reply.body).not.toContain('<API key');
	});

	it('is switched over HTTP, refused by name when unknown, and never changes the control routes or the authorization server', async () => {
		const control = (body: unknown) =>
			send(`${controls}/error-format`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			});
		expect((await control({ format: 'problem' })).status).toBe(204);
		expect((await api.get('/clients/nobody')).headers.get('content-type')).toBe(
			'application/problem+json',
		);

		const unknown = await control({ format: 'xml' });
		expect(unknown.status).toBe(400);
		expect(unknown.body).toEqual({
			message:
				'The error format must be one of message, nested, errors, problem, text, html (got "xml")',
		});
		expect((await api.get('/clients/nobody')).headers.get('content-type')).toBe(
			'application/problem+json',
		);

		const oauth = await tokenRequest(sandbox, {
			grant_type: 'password',
			client_id: sandbox.oauthClientId,
		});
		expect(oauth).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
		expect(() => sandbox.setErrorFormat('json' as ErrorFormat)).toThrow(
			/The error format must be one of/,
		);
	});

	it('is chosen at start; an unknown one is refused', async () => {
		await expect(startSandbox({ errorFormat: 'yaml' as ErrorFormat })).rejects.toThrow(
			/The error format must be one of message, nested/,
		);
		const nested = await startSandbox({ errorFormat: 'nested' });
		try {
			const reply = await apiClient(nested).get('/clients/nobody');
			expect(reply.body).toEqual({
				error: { code: 'NOT_FOUND', message: "No client with id 'nobody' in your firm" },
			});
			// The control routes, invisible when off, answer like any unknown path.
			const hidden = await send(`${new URL(nested.baseUrl).origin}/__sandbox/clock`);
			expect(hidden).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
		} finally {
			await nested.close();
		}
	});
});
