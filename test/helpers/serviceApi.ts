/* eslint-disable @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
import type { IDataObject } from 'n8n-workflow';
import type { Firm, LoggedRequest, Sandbox } from 'compliance-records-sandbox';

/*
 * The service called directly with the firm's API key, as the firm's users and other systems
 * read and change clients: the tests' setup, their changes and what they compare the node's
 * output with, not the node's requests. Works on a sandbox in the test's process or on one of an
 * end-to-end suite (its address and key). The one helper that calls the service in tests.
 */

/** A client as the service answers it (spec §2.2): what tests compare the nodes' output with. */
export interface ServiceClient extends IDataObject {
	id: string;
	name: string;
	category: string;
	state: string;
	amlDeterminationStatus: string;
	lastModifiedAt: string;
	entity: { id: string };
	referenceNumber?: string;
	nextReviewDate?: string;
	lastAmlDetermination?: { riskLevel: string };
	partner?: { id: string; name: string };
	manager?: { id: string; name: string };
	businessUnit?: { id: string; name: string };
}

/** Where the service is and the API key to call it with. */
export type ServiceAccess = Pick<Sandbox, 'baseUrl' | 'apiKey'>;

/** Marks the tests' own requests to the sandbox, so the request log can leave them out. */
export const SETUP_HEADER = 'x-test-setup';

export async function serviceCall(
	sandbox: ServiceAccess,
	method: string,
	path: string,
	body?: IDataObject,
): Promise<IDataObject> {
	const response = await fetch(`${sandbox.baseUrl}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${sandbox.apiKey}`,
			'accept-version': '1.0.0',
			'content-type': 'application/json',
			[SETUP_HEADER]: '1',
		},
		body: body && JSON.stringify(body),
	});
	if (!response.ok)
		throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
	return (await response.json()) as IDataObject;
}

/** What the service answers to a GET: the whole body (`data`, `meta`), as the service sends it. */
export async function serviceGet<T = IDataObject>(
	sandbox: ServiceAccess,
	path: string,
): Promise<T> {
	return (await serviceCall(sandbox, 'GET', path)) as T;
}

/** The firm record: its staff, business units and services. */
export async function firmOf(sandbox: ServiceAccess): Promise<Firm> {
	return (await serviceGet<{ data: Firm }>(sandbox, '/firm')).data;
}

let referenceCounter = 0;

/** A change as the firm's users make one (PATCH through the API): a new reference number. */
export async function touchClient(
	sandbox: ServiceAccess,
	clientId: string,
	update: IDataObject = {},
): Promise<IDataObject> {
	referenceCounter++;
	const body = { referenceNumber: `TOUCH-${process.pid}-${referenceCounter}`, ...update };
	return (await serviceCall(sandbox, 'PATCH', `/clients/${encodeURIComponent(clientId)}`, body))
		.data as IDataObject;
}

/** A new client (POST through the API). */
export async function createClient(sandbox: ServiceAccess, lastName: string): Promise<IDataObject> {
	const body = {
		status: 'PROSPECT',
		entity: { object: 'individual', firstName: 'Test', lastName },
	};
	return (await serviceCall(sandbox, 'POST', '/clients', body)).data as IDataObject;
}

/** Every client of the main firm (or every record of another list: `/individuals`), in list (creation) order. */
export async function listAll(sandbox: ServiceAccess, path = '/clients'): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	let cursor: string | undefined;
	do {
		const query = new URLSearchParams({ limit: '200', ...(cursor && { cursor }) });
		const page = await serviceGet<{ data: IDataObject[]; meta: { next_cursor?: string } }>(
			sandbox,
			`${path}?${query}`,
		);
		records.push(...page.data);
		cursor = page.data.length > 0 ? page.meta.next_cursor : undefined;
	} while (cursor);
	return records;
}

/** Every client id of the main firm, in list (creation) order. */
export async function clientIds(sandbox: ServiceAccess): Promise<string[]> {
	return (await listAll(sandbox)).map((client) => client.id as string);
}

/** The last name of the individual a logged client creation (POST /clients) asked for. */
export const lastNameOf = (request: LoggedRequest): string =>
	(request.body as { entity: { lastName: string } }).entity.lastName;
