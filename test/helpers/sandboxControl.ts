import type { N8nRest } from './n8n/instance';

/**
 * The sandbox's test controls over HTTP, for tests that run apart from the process holding the
 * sandbox (the end-to-end suites: jest's global setup starts the sandbox in its parent process).
 */
export async function sandboxControlAt<T = unknown>(
	origin: string,
	method: string,
	route: string,
	body?: unknown,
): Promise<T> {
	const response = await fetch(`${origin}/__sandbox${route}`, {
		method,
		headers: { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok)
		throw new Error(`${method} /__sandbox${route} answered ${response.status}: ${text}`);
	return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
}

/**
 * A new API key of the main firm (as made in the service's web app) and an n8n credential with
 * it, in the n8n that `rest` signs in to: the requests a test causes can then be told apart in
 * the sandbox's request log.
 */
export async function newApiKeyCredential(
	rest: N8nRest,
	baseUrl: string,
	name: string,
): Promise<{ id: string; name: string; apiKey: string }> {
	const { key } = await sandboxControlAt<{ key: string }>(
		new URL(baseUrl).origin,
		'POST',
		'/api-keys',
		{ name },
	);
	const credential = await rest.createCredential(name, 'complianceRecordsApi', {
		baseUrl,
		apiKey: key,
	});
	return { ...credential, apiKey: key };
}
