/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/** Small HTTP helpers shared by the API, the authorization server and the control routes. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** An error answered with its status, its message (in the chosen error format) and optional headers. */
export class HttpError extends Error {
	readonly headers: Record<string, string>;
	/** The body field or query parameter the error is about, when it is about one. */
	readonly field?: string;

	constructor(
		readonly status: number,
		message: string,
		options: { headers?: Record<string, string>; field?: string } = {},
	) {
		super(message);
		this.headers = options.headers ?? {};
		this.field = options.field;
	}
}

/** What an unexpected error in the sandbox answers (status 500). */
export const INTERNAL_ERROR_MESSAGE = 'Internal error in the sandbox';

export const badRequest = (message: string) => new HttpError(400, message);
export const notFound = (message: string) => new HttpError(404, message);
/** A 400 about one body field or query parameter, named in `field`. */
export const invalidField = (field: string, message: string) =>
	new HttpError(400, message, { field });

export function sendJson(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	if (status === 204) {
		if (!res.headersSent && !res.destroyed) res.writeHead(status, headers).end();
		return;
	}
	sendBody(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

export function sendBody(
	res: ServerResponse,
	status: number,
	contentType: string,
	text: string,
	headers: Record<string, string> = {},
): void {
	if (res.headersSent || res.destroyed) return;
	res
		.writeHead(status, {
			'content-type': contentType,
			'content-length': Buffer.byteLength(text),
			...headers,
		})
		.end(text);
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Makes every response of `res` carry a `Date` header (RFC 9110 §6.6.1) read from `nowMs`, the
 * service's clock, when its head is written, instead of the machine's time Node would send: a
 * client that reads the service's time from `Date` then sees the clock tests set (offset, frozen).
 */
export function dateFromClock(res: ServerResponse, nowMs: () => number): void {
	res.sendDate = false;
	const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
	// Every way of answering (writeHead, or end() on its own) goes through writeHead.
	res.writeHead = ((...args: unknown[]) => {
		if (!res.hasHeader('date')) res.setHeader('date', httpDate(nowMs()));
		return writeHead(...args);
	}) as ServerResponse['writeHead'];
}

/** An HTTP date (RFC 9110 §5.6.7, IMF-fixdate), e.g. `Thu, 01 May 2031 08:00:00 GMT`. */
export const httpDate = (ms: number) => new Date(ms).toUTCString();

/** Resolves once the connection of `res` closes (the client gave up) or `signal` aborts (the sandbox closes). */
export function untilClosed(res: ServerResponse, signal: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		if (res.destroyed || signal.aborted) return resolve();
		const done = () => {
			res.off('close', done);
			signal.removeEventListener('abort', done);
			resolve();
		};
		res.once('close', done);
		signal.addEventListener('abort', done);
	});
}

/** The whole request body; 413 past 1 MB. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > MAX_BODY_BYTES) throw new HttpError(413, 'Request body is larger than 1 MB');
		chunks.push(chunk);
	}
	return Buffer.concat(chunks);
}

/** decodeURIComponent, with 400 instead of an exception for malformed escapes. */
export function decodeComponent(text: string, what: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		throw badRequest(`${what} is not correctly URL-encoded`);
	}
}

/** JSON.parse that answers undefined for anything that is not JSON (used by the request log). */
export function tryParseJson(raw: Buffer): unknown {
	if (raw.length === 0) return undefined;
	try {
		return JSON.parse(raw.toString('utf8'));
	} catch {
		return undefined;
	}
}

/** The JSON body of a write request: it must be declared and be well-formed JSON. */
export function jsonBody(req: IncomingMessage, raw: Buffer): unknown {
	const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (type !== 'application/json') {
		throw new HttpError(415, `Content-Type must be application/json (got ${type || 'none'})`);
	}
	try {
		return JSON.parse(raw.toString('utf8'));
	} catch (error) {
		throw badRequest(`The request body is not valid JSON: ${(error as Error).message}`);
	}
}

/** The query as parsed: one value per name, or an array when a name repeats. */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
	const query: Record<string, string | string[]> = {};
	for (const name of new Set(params.keys())) {
		const values = params.getAll(name);
		query[name] = values.length === 1 ? values[0] : values;
	}
	return query;
}

export function isLoopback(address: string | undefined): boolean {
	return address === '::1' || /^(::ffff:)?127\./.test(address ?? '');
}

export function listen(server: Server, port: number, host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			const address = server.address();
			resolve(typeof address === 'object' && address ? address.port : port);
		});
	});
}

export function closeServer(server: Server): Promise<void> {
	return new Promise((resolve) => {
		if (!server.listening) return resolve();
		server.close(() => resolve());
		server.closeAllConnections();
	});
}

/** `http://host:port`, with IPv6 hosts bracketed and wildcard hosts shown as loopback. */
export function origin(host: string, port: number): string {
	const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
	return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}
