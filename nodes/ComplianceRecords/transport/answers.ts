import type { IDataObject } from 'n8n-workflow';

/* Reading the service's answers: headers, Retry-After, and its own words in any error body. */

/** A JSON object (not null, not a list): what a record, a reference or an error body must be to be read. */
export const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** A header of an answer, whatever the case of its name. */
export function headerOf(headers: IDataObject | undefined, name: string): unknown {
	const key = Object.keys(headers ?? {}).find((candidate) => candidate.toLowerCase() === name);
	return key === undefined ? undefined : headers?.[key];
}

/** An HTTP answer with an error status, as received. */
export interface ServiceAnswer {
	status: number;
	body: unknown;
	headers: IDataObject;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/* The service's words in the common error bodies of JSON APIs: a message at the top or nested, a
 * list of errors, RFC 9457 problem details. The keys are tried in this order. */
const MESSAGE_KEYS = [
	'detail',
	'message',
	'error_description',
	'errorMessage',
	'description',
	'msg',
	'reason',
	'error',
	'title',
];
const LIST_KEYS = ['errors', 'invalid-params', 'invalid_params', 'violations', 'details'];
const FIELD_KEYS = ['field', 'param', 'parameter', 'pointer', 'path', 'name', 'property'];
const MAX_LISTED = 3;

function fieldOf(entry: IDataObject): string | undefined {
	const source = isObject(entry.source) ? entry.source : {};
	const found = [...FIELD_KEYS.map((key) => entry[key]), source.pointer, source.parameter].find(
		(value) => typeof value === 'string' && value.trim() !== '',
	);
	if (found !== undefined) return String(found);
	return Array.isArray(entry.loc) ? entry.loc.join('.') : undefined;
}

function listed(entries: unknown[], depth: number): string | undefined {
	const parts = entries
		.map((entry) => {
			const words = wordsInJson(entry, depth + 1);
			const field = isObject(entry) ? fieldOf(entry) : undefined;
			return words && field && !words.includes(field) ? `${field}: ${words}` : words;
		})
		.filter((part): part is string => part !== undefined);
	if (parts.length === 0) return undefined;
	const more = parts.length > MAX_LISTED ? ` (and ${parts.length - MAX_LISTED} more)` : '';
	return parts.slice(0, MAX_LISTED).join('; ') + more;
}

function wordsInJson(value: unknown, depth = 0): string | undefined {
	if (depth > 4) return undefined;
	if (typeof value === 'string') return oneLine(value) || undefined;
	if (Array.isArray(value)) return listed(value, depth);
	if (!isObject(value)) return undefined;
	const message = MESSAGE_KEYS.map((key) => value[key])
		.map((candidate) =>
			typeof candidate === 'string' || typeof candidate === 'object'
				? wordsInJson(candidate, depth + 1)
				: undefined,
		)
		.find((words) => words !== undefined);
	const list = LIST_KEYS.map((key) => value[key])
		.filter((candidate) => Array.isArray(candidate) || isObject(candidate))
		.map((candidate) =>
			Array.isArray(candidate) ? listed(candidate, depth) : wordsInJson(candidate, depth + 1),
		)
		.find((words) => words !== undefined);
	if (message && list && !message.includes(list)) return `${message}: ${list}`;
	return message ?? list;
}

const decodeEntities = (text: string) =>
	text
		.replace(/&nbsp;/gi, ' ')
		.replace(/&lt;/gi, '<')
		.replace(/&gt;/gi, '>')
		.replace(/&quot;/gi, '"')
		.replace(/&#39;|&apos;/gi, "'")
		.replace(/&amp;/gi, '&');

function textOfElement(html: string, tag: string): string | undefined {
	const match = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'i').exec(html);
	const text = match && oneLine(decodeEntities(match[1].replace(/<[^>]*>/g, ' ')));
	return text || undefined;
}

/** An HTML page (a proxy's or gateway's, usually) summarised: its title or heading, and its first paragraph. */
function htmlSummary(html: string): string {
	const page = html.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '');
	const heading = textOfElement(page, 'title') ?? textOfElement(page, 'h1');
	const paragraph = textOfElement(page, 'p');
	const said = [heading, paragraph && paragraph !== heading ? paragraph : undefined]
		.filter(Boolean)
		.join(': ');
	return `${said || 'a page with no title'} (an HTML page, likely from a proxy or gateway in front of the service)`;
}

const looksLikeHtml = (text: string, contentType: string) =>
	/html/i.test(contentType) || /^\s*<(!doctype|html|head|body)\b/i.test(text);

/** The service's own words in an error answer, whatever the shape of its body; undefined when it has none. */
export function serviceWords(answer: Pick<ServiceAnswer, 'body' | 'headers'>): string | undefined {
	const { headers } = answer;
	const body =
		answer.body instanceof Uint8Array ? Buffer.from(answer.body).toString('utf8') : answer.body;
	if (typeof body !== 'string') return wordsInJson(body);
	const contentType = String(headerOf(headers, 'content-type') ?? '');
	if (looksLikeHtml(body, contentType)) return htmlSummary(body);
	if (/^\s*[[{]/.test(body)) {
		try {
			return wordsInJson(JSON.parse(body));
		} catch {
			// Not JSON after all: the text as it is.
		}
	}
	return oneLine(body) || undefined;
}

/* RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime formats a recipient must accept too. */
const HTTP_DATES = [
	/^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (?<day>\d\d) (?<month>[A-Z][a-z]{2}) (?<year>\d{4}) (?<time>\d\d:\d\d:\d\d) GMT$/,
	/^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (?<day>\d\d)-(?<month>[A-Z][a-z]{2})-(?<year>\d\d) (?<time>\d\d:\d\d:\d\d) GMT$/,
	/^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?<month>[A-Z][a-z]{2}) (?<day>[ \d]\d) (?<time>\d\d:\d\d:\d\d) (?<year>\d{4})$/,
];

/** An HTTP-date in epoch ms; undefined for anything else, a day that does not exist included. */
export function httpDateMs(value: unknown): number | undefined {
	const text = String(value ?? '').trim();
	const parts = HTTP_DATES.map((format) => format.exec(text)?.groups).find(Boolean);
	if (!parts) return undefined;
	let year = Number(parts.year);
	// RFC 850's two-digit year: the latest year with those digits at most 50 years ahead.
	if (parts.year.length === 2)
		year += 100 * Math.floor((new Date().getUTCFullYear() + 50 - year) / 100);
	const fixdate = `${parts.day.trim().padStart(2, '0')} ${parts.month} ${year} ${parts.time} GMT`;
	const ms = Date.parse(fixdate);
	return new Date(ms).toUTCString().endsWith(fixdate) ? ms : undefined;
}

/**
 * The wait a `Retry-After` asks, in ms (RFC 9110 §10.2.3): digits only, or an HTTP-date read
 * against the answer's own `Date`; anything else asks nothing, and the node's back-off applies.
 */
export function retryAfterMs(headers: IDataObject): number | undefined {
	const value = String(headerOf(headers, 'retry-after') ?? '').trim();
	if (/^\d+$/.test(value)) return Number(value) * 1000;
	const until = httpDateMs(value);
	if (until === undefined) return undefined;
	return Math.max(0, until - (httpDateMs(headerOf(headers, 'date')) ?? Date.now()));
}

/** What an answer's rate-limit headers tell: a limit per window (unnamed for some headers), and what is left until when. */
export interface RateLimitSaid {
	requests?: number;
	windowMs?: number;
	remaining?: number;
	resetMs?: number;
}

/** A whole number after `name=` in a structured header (`q=100`, `remaining=5`). */
function parameter(text: string, name: string): number | undefined {
	const found = new RegExp(`(?:^|[\\s;,])${name}=(\\d+)(?![\\w.])`).exec(text);
	return found ? Number(found[1]) : undefined;
}

function counted(headers: IDataObject, names: string[]): number | undefined {
	const value = String(names.map((name) => headerOf(headers, name)).find(Boolean) ?? '').trim();
	return /^\d+$/.test(value) ? Number(value) : undefined;
}

/** IETF's `RateLimit-Policy` (the slowest) and `RateLimit`, drafts 7 and later, and the older `RateLimit-*` and `X-RateLimit-*`. */
export function rateLimitOf(headers: IDataObject): RateLimitSaid {
	const policies = String(headerOf(headers, 'ratelimit-policy') ?? '')
		.split(',')
		.map((policy) => ({
			requests: parameter(policy, 'q') ?? Number(/^\s*(\d+)\s*;/.exec(policy)?.[1] ?? NaN),
			seconds: parameter(policy, 'w'),
		}))
		.filter(({ requests, seconds }) => requests > 0 && seconds !== undefined && seconds > 0)
		.sort((one, other) => one.requests / one.seconds! - other.requests / other.seconds!);
	const state = String(headerOf(headers, 'ratelimit') ?? '');
	const remaining =
		parameter(state, 'r') ??
		parameter(state, 'remaining') ??
		counted(headers, ['ratelimit-remaining', 'x-ratelimit-remaining']);
	let reset =
		parameter(state, 't') ??
		parameter(state, 'reset') ??
		counted(headers, ['ratelimit-reset', 'x-ratelimit-reset']);
	if (reset !== undefined && reset > 1e9)
		reset = Math.max(0, reset - (httpDateMs(headerOf(headers, 'date')) ?? Date.now()) / 1000);
	const [slowest] = policies;
	const limit =
		parameter(state, 'limit') ?? counted(headers, ['ratelimit-limit', 'x-ratelimit-limit']);
	return {
		...(slowest
			? { requests: slowest.requests, windowMs: slowest.seconds! * 1000 }
			: limit !== undefined && { requests: limit }),
		...(remaining !== undefined && { remaining }),
		...(reset !== undefined && { resetMs: reset * 1000 }),
	};
}
