/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
/**
 * The API of the spec (§4) over HTTP: routes, the accept-version check, authentication,
 * query and body validation, pagination. Every request (but the control routes) is recorded
 * in the request log and may be hit by an injected fault first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

import type { Authenticator, Caller } from './auth';
import type { ControlTarget, Faults, RequestLog } from './controls';
import { CONTROL_PREFIX, UNANSWERED, handleControl } from './controls';
import type { ErrorAnswer, ErrorAnswers } from './errorFormat';
import type { Limits } from './limits';
import {
	HttpError,
	INTERNAL_ERROR_MESSAGE,
	badRequest,
	decodeComponent,
	invalidField,
	isLoopback,
	jsonBody,
	notFound,
	queryObject,
	readBody,
	sendJson,
	tryParseJson,
} from './http';
import type { Page } from './paging';
import { Cursors, DEFAULT_LIMIT, MAX_LIMIT } from './paging';
import type { Renderer } from './render';
import type { Store } from './store';
import { ConflictError } from './store';
import { parseClientUpdate, parseCreateClient, parseIndividualUpdate } from './validation';

export const API_VERSION = '1.0.0';

interface ApiRequest {
	req: IncomingMessage;
	url: URL;
	raw: Buffer;
	caller: Caller;
	id: string;
}

interface Operation {
	run: (request: ApiRequest) => { status: number; body: unknown };
	/** The query parameters it accepts; any other is refused by name. */
	query?: string[];
}

const LIST_QUERY = ['cursor', 'limit'];

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

export interface ApiOptions {
	apiPath: string;
	controls: boolean;
	log?: (line: string) => void;
}

export class Api {
	/** Operations by route pattern and method; `:id` matches one path segment. */
	private readonly routes: Record<string, Record<string, Operation>> = {
		'/clients': {
			GET: { run: (r) => this.listClients(r), query: [...LIST_QUERY, 'sinceModifiedAt'] },
			POST: { run: (r) => this.createClient(r) },
		},
		'/clients/:id': {
			GET: { run: (r) => this.getClient(r) },
			PATCH: { run: (r) => this.updateClient(r) },
		},
		'/firm': { GET: { run: (r) => this.getFirm(r) } },
		'/individuals': { GET: { run: (r) => this.listIndividuals(r), query: LIST_QUERY } },
		'/individuals/:id': {
			GET: { run: (r) => this.getIndividual(r) },
			PATCH: { run: (r) => this.updateIndividual(r) },
		},
		'/organisations': { GET: { run: (r) => this.listOrganisations(r), query: LIST_QUERY } },
	};

	constructor(
		private readonly store: Store,
		private readonly render: Renderer,
		private readonly authenticator: Authenticator,
		private readonly cursors: Cursors,
		private readonly requestLog: RequestLog,
		private readonly faults: Faults,
		private readonly limits: Limits,
		private readonly errors: ErrorAnswers,
		private readonly controlTarget: ControlTarget,
		private readonly options: ApiOptions,
		private readonly closing: AbortSignal,
	) {}

	handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const started = performance.now();
		const rawUrl = req.url ?? '/';
		const url = new URL(rawUrl, 'http://sandbox.invalid');
		if (url.pathname.startsWith(CONTROL_PREFIX)) {
			// Controls off, or a caller not on this machine: 404 like any unknown path, so the routes are invisible.
			if (this.options.controls && isLoopback(req.socket.remoteAddress))
				await handleControl(req, res, url, this.controlTarget);
			else this.errors.send(res, notFound(`No route ${req.method} ${url.pathname}`));
			return;
		}
		const routePath = this.routePath(url.pathname);
		const entry = this.requestLog.add({
			method: req.method ?? 'GET',
			path: routePath ?? url.pathname,
			query: queryObject(url.searchParams),
			url: rawUrl,
			headers: { ...req.headers },
			body: undefined,
			receivedAt: Date.now(),
		});
		const answerError = (answer: ErrorAnswer) => {
			entry.status = answer.status;
			entry.answeredAt = Date.now();
			entry.errorMessage = answer.message;
			this.errors.send(res, answer);
		};
		const answered = this.limits.arrived();
		try {
			const raw = await readBody(req);
			entry.body = tryParseJson(raw);
			const { refusal, headers } = await this.limits.judge(this.closing);
			for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
			if (refusal) {
				answerError(refusal);
				return;
			}
			const fault = this.faults.take(entry.path, req.headers.authorization);
			// A fault after handling: the request acts, then its answer is lost to the error.
			const handled = fault?.afterHandling
				? this.dispatchOrError(req, url, routePath, raw)
				: undefined;
			const faultAnswer = fault && (await this.faults.apply(fault, res, this.closing));
			if (faultAnswer === UNANSWERED) return; // logged with no status
			if (faultAnswer) {
				answerError(faultAnswer);
			} else {
				const { status, body } = handled ?? this.dispatch(req, url, routePath, raw);
				sendJson(res, status, body);
				entry.status = status;
				entry.answeredAt = Date.now();
			}
		} catch (error) {
			if (this.closing.aborted) {
				res.destroy();
				return;
			}
			if (!(error instanceof HttpError)) {
				answerError({ status: 500, message: INTERNAL_ERROR_MESSAGE });
				throw error; // reported by the server's error guard
			}
			answerError(error);
		} finally {
			answered();
			const elapsed = (performance.now() - started).toFixed(1);
			const status = entry.status ?? 'aborted';
			this.options.log?.(
				`${entry.method} ${url.pathname}${loggedQuery(url.searchParams)} ${status} ${elapsed} ms`,
			);
		}
	};

	/** The path below `apiPath`, or undefined for a path outside the API. */
	private routePath(pathname: string): string | undefined {
		const { apiPath } = this.options;
		if (!apiPath) return pathname;
		if (pathname === apiPath) return '/';
		return pathname.startsWith(`${apiPath}/`) ? pathname.slice(apiPath.length) : undefined;
	}

	/** {@link dispatch}, its own refusal (an HttpError) taken as its answer. */
	private dispatchOrError(
		req: IncomingMessage,
		url: URL,
		routePath: string | undefined,
		raw: Buffer,
	) {
		try {
			return this.dispatch(req, url, routePath, raw);
		} catch (error) {
			if (error instanceof HttpError) return { status: error.status, body: undefined };
			throw error;
		}
	}

	/** Route, then accept-version, then credentials, then the operation's own checks. */
	private dispatch(req: IncomingMessage, url: URL, routePath: string | undefined, raw: Buffer) {
		const segments = (routePath ?? '').split('/').slice(1);
		const pattern =
			segments.length === 2 && segments[1] !== ''
				? `/${segments[0]}/:id`
				: `/${segments.join('/')}`;
		const methods =
			routePath === undefined || segments.length > 2 ? undefined : this.routes[pattern];
		if (!methods)
			throw notFound(
				`No route ${req.method} ${url.pathname}: see the API's endpoints in the spec (§4)`,
			);
		const operation = methods[req.method ?? ''];
		if (!operation) {
			throw new HttpError(
				405,
				`${req.method} is not allowed on ${url.pathname}: use ${Object.keys(methods).join(' or ')}`,
				{
					headers: { allow: Object.keys(methods).join(', ') },
				},
			);
		}
		const version = req.headers['accept-version'];
		if (version === undefined)
			throw badRequest(`Missing accept-version header: send accept-version: ${API_VERSION}`);
		if (version !== API_VERSION) {
			throw badRequest(
				`Unsupported accept-version '${version}': the only supported version is ${API_VERSION}`,
			);
		}
		const caller = this.authenticator.authenticate(req.headers.authorization);
		if (req.method !== 'GET' && caller.readOnly) {
			throw new HttpError(
				403,
				'This API key is read-only: use a key with write access to create or update records',
			);
		}
		checkQueryNames(url.searchParams, operation.query ?? []);
		return operation.run({
			req,
			url,
			raw,
			caller,
			id: decodeComponent(segments[1] ?? '', 'The id in the path'),
		});
	}

	private listClients({ url, caller }: ApiRequest) {
		const { limit, cursor, sinceModifiedAt } = listQuery(url.searchParams);
		const { clients, modifiedIndex } = this.store.firmData(caller.firmId);
		const filtered = sinceModifiedAt !== undefined;
		return ok(
			this.cursors.page(
				{ list: 'clients', firmId: caller.firmId, sinceModifiedAt },
				{ cursor, limit },
				filtered ? modifiedIndex.countAtOrAfter(sinceModifiedAt) : clients.length,
				filtered
					? (position) => modifiedIndex.nextAtOrAfter(position, sinceModifiedAt)
					: everyPosition(clients),
				(position) => this.render.clientListItem(clients[position]),
			),
		);
	}

	private createClient({ req, raw, caller }: ApiRequest) {
		const input = parseCreateClient(jsonBody(req, raw), this.store.firmData(caller.firmId));
		const client = this.conflictAware(() => this.store.createClient(caller.firmId, input));
		return { status: 201, body: { data: this.render.client(client) } };
	}

	private getClient({ caller, id }: ApiRequest) {
		return ok({ data: this.render.client(this.findClient(caller, id)) });
	}

	private updateClient({ req, raw, caller, id }: ApiRequest) {
		const client = this.findClient(caller, id);
		const update = parseClientUpdate(jsonBody(req, raw), this.store.firmData(caller.firmId));
		this.conflictAware(() => this.store.updateClient(client, update));
		return ok({ data: this.render.client(client) });
	}

	private getFirm({ caller }: ApiRequest) {
		return ok({ data: this.render.firm(this.store.firmData(caller.firmId).firm) });
	}

	private listIndividuals({ url, caller }: ApiRequest) {
		return ok(
			this.listAll(
				url,
				caller,
				'individuals',
				this.store.firmData(caller.firmId).individuals,
				(individual) => this.render.individual(individual),
			),
		);
	}

	private getIndividual({ caller, id }: ApiRequest) {
		return ok({ data: this.render.individual(this.findIndividual(caller, id)) });
	}

	private updateIndividual({ req, raw, caller, id }: ApiRequest) {
		const individual = this.findIndividual(caller, id);
		this.store.updateIndividual(individual, parseIndividualUpdate(jsonBody(req, raw)));
		return ok({ data: this.render.individual(individual) });
	}

	/** List items of organisations carry everything but relatedPartiesCount (see the README). */
	private listOrganisations({ url, caller }: ApiRequest) {
		return ok(
			this.listAll(
				url,
				caller,
				'organisations',
				this.store.firmData(caller.firmId).organisations,
				(organisation) => this.render.organisation(organisation, false),
			),
		);
	}

	/** A list without a filter: every record of the firm, in creation order. */
	private listAll<T, R>(
		url: URL,
		caller: Caller,
		list: string,
		items: readonly T[],
		render: (item: T) => R,
	): Page<R> {
		const { limit, cursor } = listQuery(url.searchParams);
		return this.cursors.page(
			{ list, firmId: caller.firmId },
			{ cursor, limit },
			items.length,
			everyPosition(items),
			(position) => render(items[position]),
		);
	}

	private findClient(caller: Caller, id: string) {
		const client = this.store.client(caller.firmId, id);
		if (!client) throw notFound(`No client with id '${id}' in your firm`);
		return client;
	}

	private findIndividual(caller: Caller, id: string) {
		const individual = this.store.individual(caller.firmId, id);
		if (!individual) throw notFound(`No individual with id '${id}' in your firm`);
		return individual;
	}

	private conflictAware<T>(write: () => T): T {
		try {
			return write();
		} catch (error) {
			if (error instanceof ConflictError)
				throw new HttpError(409, error.message, { field: error.field });
			throw error;
		}
	}
}

/** Only the parameters an operation knows, each at most once. */
function checkQueryNames(params: URLSearchParams, allowed: string[]): void {
	for (const name of new Set(params.keys())) {
		if (!allowed.includes(name)) {
			throw invalidField(
				name,
				allowed.length
					? `Unknown query parameter '${name}': this endpoint accepts ${allowed.join(', ')}`
					: `Unknown query parameter '${name}': this endpoint takes no query parameters`,
			);
		}
		if (params.getAll(name).length > 1)
			throw invalidField(name, `The query parameter ${name} is given more than once`);
	}
}

/** The values of a list's query: limit (default 50), cursor, sinceModifiedAt in ms. */
function listQuery(params: URLSearchParams) {
	const limitText = params.get('limit');
	const limit =
		limitText === null ? DEFAULT_LIMIT : /^\d+$/.test(limitText) ? Number(limitText) : NaN;
	if (!(limit >= 1 && limit <= MAX_LIMIT)) {
		throw invalidField(
			'limit',
			`limit must be a whole number from 1 to ${MAX_LIMIT} (got '${limitText}')`,
		);
	}
	const cursor = params.get('cursor') ?? undefined;
	if (cursor === '')
		throw invalidField(
			'cursor',
			'cursor is empty: omit it for the first page, or pass meta.next_cursor',
		);
	const since = params.get('sinceModifiedAt');
	let sinceModifiedAt: number | undefined;
	if (since !== null && since !== '') {
		// Timestamps here are in milliseconds: finer fractions are cut before parsing.
		sinceModifiedAt = DATE_TIME.test(since) ? Date.parse(since.replace(/(\.\d{3})\d+/, '$1')) : NaN;
		if (Number.isNaN(sinceModifiedAt)) {
			throw invalidField(
				'sinceModifiedAt',
				`sinceModifiedAt must be a date-time such as 2026-01-31T09:30:00.000Z (got '${since}'; ` +
					"a '+' in an offset must be URL-encoded as %2B)",
			);
		}
	}
	return { limit, cursor, sinceModifiedAt };
}

const ok = (body: unknown) => ({ status: 200, body });

/** The query as the CLI logs it: values of the paging parameters only, so no stray secret is printed. */
function loggedQuery(params: URLSearchParams): string {
	const shown = new URLSearchParams();
	for (const [name, value] of params)
		shown.append(name, [...LIST_QUERY, 'sinceModifiedAt'].includes(name) ? value : '(hidden)');
	const query = shown.toString();
	return query ? `?${query}` : '';
}

/** Paging without a filter: every position is a match until the end of the list. */
const everyPosition = (items: readonly unknown[]) => (position: number) =>
	position < items.length ? position : -1;
