/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
// A pass-through HTTP proxy in front of the sandbox, for tests and the crash-recovery harness:
// it sees every request n8n sends, and can hold one or answer in the service's place.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer the proxy sends instead of forwarding the request. */
export interface ProxyAnswer {
	status: number;
	body: unknown;
}

export interface ProxyHooks {
	/** Runs before a request is forwarded: it may wait, or give the answer to send instead. */
	before?(request: { method: string; url: URL }): Promise<ProxyAnswer | void> | ProxyAnswer | void;
	/** Whether answers keep the upstream's `Date` header (default: they do). */
	keepsDate?(): boolean;
}

/**
 * Listens on a free loopback port and forwards every request to `upstream`'s origin as it came
 * (method, path, headers, body), answering with what the upstream answered.
 */
export async function forwardingProxy(
	upstream: string,
	hooks: ProxyHooks = {},
): Promise<{ origin: string; close(): Promise<void> }> {
	const { origin } = new URL(upstream);
	const server = createServer((request: IncomingMessage, response: ServerResponse) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', async () => {
			try {
				const url = new URL(request.url ?? '/', origin);
				const method = request.method ?? 'GET';
				const instead = await hooks.before?.({ method, url });
				if (instead) {
					response
						.writeHead(instead.status, { 'content-type': 'application/json' })
						.end(JSON.stringify(instead.body));
					return;
				}
				const headers = Object.fromEntries(
					Object.entries(request.headers).filter(
						([name]) => name !== 'host' && name !== 'connection',
					),
				) as Record<string, string>;
				const answer = await fetch(url, {
					method,
					headers,
					body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
				});
				const answerHeaders = Object.fromEntries(answer.headers);
				if (hooks.keepsDate && !hooks.keepsDate()) {
					response.sendDate = false;
					delete answerHeaders.date;
				}
				response.writeHead(answer.status, answerHeaders);
				response.end(Buffer.from(await answer.arrayBuffer()));
			} catch (error) {
				if (!response.headersSent) response.writeHead(502);
				response.end(String(error));
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
