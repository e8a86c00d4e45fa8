/**
 * The sandbox's test controls over HTTP, for tests that run apart from the process holding the
 * sandbox (the end-to-end suites: jest's global setup starts the sandbox in its parent process).
 */
export async function sandboxControlAt<T = unknown>(origin: string, method: string, route: string, body?: unknown): Promise<T> {
	const response = await fetch(`${origin}/__sandbox${route}`, {
		method,
		headers: { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} /__sandbox${route} answered ${response.status}: ${text}`);
	return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
}
