/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * The shape of the API's error answers. The spec does not show one (§7), so a client must cope
 * with whatever a service, or a proxy in front of it, sends: tests pick the shape here.
 */
import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';

import { sendBody } from './http';

export const ERROR_FORMATS = ['message', 'nested', 'errors', 'problem', 'text', 'html'] as const;
export type ErrorFormat = (typeof ERROR_FORMATS)[number];

/** An error as the API answers it, before it takes a shape. */
export interface ErrorAnswer {
	status: number;
	/** What went wrong, in the service's words: the request log's `errorMessage`. */
	message: string;
	/** The body field or query parameter the error is about, when it is about one. */
	field?: string;
	headers?: Record<string, string>;
}

interface Rendered {
	contentType: string;
	body: string;
}

const json = (value: unknown): Rendered => ({
	contentType: 'application/json; charset=utf-8',
	body: JSON.stringify(value),
});

const reasonPhrase = (status: number) => STATUS_CODES[status] ?? 'Error';

/** `Not Found` → `NOT_FOUND`, `Payload Too Large` → `PAYLOAD_TOO_LARGE`. */
const reasonCode = (status: number) =>
	reasonPhrase(status)
		.toUpperCase()
		.replace(/[^A-Z0-9]+/g, '_');

/** Text content of an element: only these three change meaning there. */
const escapeHtml = (text: string) =>
	text.replace(/[&<>]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[char]!);

const RENDER: Record<ErrorFormat, (error: ErrorAnswer) => Rendered> = {
	message: ({ message }) => json({ message }),
	nested: ({ status, message }) => json({ error: { code: reasonCode(status), message } }),
	errors: ({ status, message, field }) =>
		json({
			errors: [{ code: reasonCode(status), message, ...(field === undefined ? {} : { field }) }],
		}),
	problem: ({ status, message }) => ({
		contentType: 'application/problem+json',
		body: JSON.stringify({
			type: 'about:blank',
			title: reasonPhrase(status),
			status,
			detail: message,
		}),
	}),
	text: ({ message }) => ({ contentType: 'text/plain; charset=utf-8', body: message }),
	html: ({ status, message }) => ({
		contentType: 'text/html; charset=utf-8',
		body: proxyErrorPage(status, message),
	}),
};

/** The kind of page a reverse proxy in front of a service answers: a client has to summarise it. */
function proxyErrorPage(status: number, message: string): string {
	const heading = `${status} ${reasonPhrase(status)}`;
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${heading}</title>
<style>
  body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0; background: #f4f5f7; color: #1f2328; }
  main { max-width: 40rem; margin: 4rem auto; padding: 2rem 2.5rem; background: #fff; border-radius: 6px; box-shadow: 0 1px 3px rgba(0, 0, 0, 0.12); }
  h1 { font-size: 1.6rem; margin: 0 0 1rem; }
  p { line-height: 1.5; }
  footer { margin-top: 2rem; padding-top: 1rem; border-top: 1px solid #d0d7de; font-size: 0.8rem; color: #656d76; }
</style>
</head>
<body>
<main>
<h1>${heading}</h1>
<p>${escapeHtml(message)}</p>
<footer>compliance-records-edge/2.4 (gateway)</footer>
</main>
</body>
</html>
`;
}

export function checkErrorFormat(format: unknown): ErrorFormat {
	if (!ERROR_FORMATS.includes(format as ErrorFormat)) {
		throw new RangeError(
			`The error format must be one of ${ERROR_FORMATS.join(', ')} (got ${JSON.stringify(format)})`,
		);
	}
	return format as ErrorFormat;
}

/** Answers the API's errors in the chosen format; the format can change while the sandbox runs. */
export class ErrorAnswers {
	private format: ErrorFormat;

	constructor(format: unknown) {
		this.format = checkErrorFormat(format);
	}

	setFormat(format: unknown): void {
		this.format = checkErrorFormat(format);
	}

	send(res: ServerResponse, error: ErrorAnswer): void {
		const { contentType, body } = RENDER[this.format](error);
		sendBody(res, error.status, contentType, body, error.headers);
	}
}
