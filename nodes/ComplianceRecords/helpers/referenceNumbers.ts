import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { answerIn, headerOf, type ServiceAnswer } from '../transport/errors';
import { pages } from '../transport/paging';
import { checkRequired } from './checks';
import { sharedInExecution } from './execution';
import { recordOutput } from './output';
import { explained, routedPages, routedRequest, routedSend } from './routing';
import { firstEvaluationBound, serviceTimeFromDate, type Sighting, watermarkAfter } from './serviceTime';

/*
 * Create or Update by reference number. The service has no lookup by reference number, but it
 * refuses a second client with a taken one (409), after checking the body: so the node creates
 * first (one request for a new number) and, on the conflict, updates the client holding the
 * number. That client is found in one listing of the firm's clients per execution, shared by
 * every item; a number not in it, or one that moved since, is found by listing only the clients
 * changed since (`sinceModifiedAt`, the trigger's watermark rules). The update sends the number
 * too, so the service refuses it while another client holds the number: a stale listing costs
 * requests, not a wrong update. Costs, and the one race left: docs/benchmarks.md.
 */

export const REFERENCE_NUMBER = 'Reference Number';

interface Listed {
	referenceNumber?: string;
	/** Its `lastModifiedAt`, epoch ms. */
	modifiedAt: number;
}

/** Which client holds which reference number, as listings showed the firm's clients. */
class ClientsByReference {
	private readonly clients = new Map<string, Listed>();

	private readonly holders = new Map<string, string>();

	/** Every change the service made before this time (epoch ms, its clock) has been listed. */
	listedUntil = -Infinity;

	holderOf(referenceNumber: string): string | undefined {
		return this.holders.get(referenceNumber);
	}

	/** A client as a listing gave it (a state older than one already listed is ignored); its `lastModifiedAt`, epoch ms. */
	learn(client: IDataObject): number {
		const id = String(client.id);
		const modifiedAt = Date.parse(String(client.lastModifiedAt));
		const known = this.clients.get(id);
		if (known && known.modifiedAt > modifiedAt) return modifiedAt;
		if (known?.referenceNumber !== undefined && this.holders.get(known.referenceNumber) === id) {
			this.holders.delete(known.referenceNumber);
		}
		const referenceNumber = typeof client.referenceNumber === 'string' ? client.referenceNumber : undefined;
		this.clients.set(id, { referenceNumber, modifiedAt });
		if (referenceNumber !== undefined) this.holders.set(referenceNumber, id);
		return modifiedAt;
	}
}

/**
 * Lists the firm's clients into `index`: all of them the first time, then those changed since
 * the last listing. `conflict` is the 409 that made the listing needed: the service answered it
 * before the listing's first request, so its `Date` bounds when the listing began.
 */
async function listInto(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	index: ClientsByReference,
	conflict: ServiceAnswer,
): Promise<void> {
	const since = index.listedUntil;
	const filter = since === -Infinity ? {} : { sinceModifiedAt: new Date(since).toISOString() };
	const list = routedRequest(requestData, { method: 'GET', url: '/clients', body: undefined });
	const startedAt = performance.now();
	const sightings: Sighting[] = [];
	for await (const { records } of pages(routedPages(context, list, filter))) {
		const lateness = performance.now() - startedAt;
		for (const client of records) {
			const modifiedAt = index.learn(client);
			if (Number.isFinite(modifiedAt)) sightings.push({ modifiedAt, lateness });
		}
	}
	const answeredAt = serviceTimeFromDate(headerOf(conflict.headers, 'date'), 0) ?? -Infinity;
	const firstEvaluation = Math.max(firstEvaluationBound(sightings), answeredAt);
	index.listedUntil = Math.max(index.listedUntil, watermarkAfter(since, firstEvaluation));
}

/** What `work` resolves to; what it throws, explained for this item (transport/errors.ts). */
async function orExplained<T>(context: IExecutePaginationFunctions, work: Promise<T>): Promise<T> {
	try {
		return await work;
	} catch (error) {
		throw await explained(context, error);
	}
}

type Outcome = { client: IDataObject } | { conflict: ServiceAnswer };

/** One request answering a client; the service's 409 comes back as the conflict, any other failure is explained. */
async function clientOrConflict(
	context: IExecutePaginationFunctions,
	request: DeclarativeRestApiSettings.ResultOptions,
): Promise<Outcome> {
	try {
		const [answer] = await routedSend(context, request);
		return { client: (answer.json as IDataObject).data as IDataObject };
	} catch (error) {
		const answer = answerIn(error);
		if (answer?.status === 409) return { conflict: answer };
		throw await explained(context, error);
	}
}

function changedHands(context: IExecutePaginationFunctions, referenceNumber: string): NodeOperationError {
	const itemIndex = context.getItemIndex();
	return new NodeOperationError(
		context.getNode(),
		`'${REFERENCE_NUMBER}' "${referenceNumber}" changed hands while the node ran, so no client was updated [item ${itemIndex}]`,
		{
			itemIndex,
			description:
				'Another user or system gave the number to another client, or took it away, at the same time. Run the node again: it updates the client that has the number then, or creates one if none has.',
		},
	);
}

/** The new client, or the client holding the reference number, updated. */
async function createdOrUpdated(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	referenceNumber: string,
): Promise<IDataObject> {
	const created = await clientOrConflict(context, requestData);
	if ('client' in created) return created.client;

	// An update cannot change the entity (spec §4.1); the reference number makes it conditional.
	const changes = { ...(requestData.options.body as IDataObject) };
	delete changes.entity;
	const updateHolder = async (index: ClientsByReference): Promise<Outcome | undefined> => {
		const holder = index.holderOf(referenceNumber);
		if (holder === undefined) return undefined;
		const url = `/clients/${encodeURIComponent(holder)}`;
		return await clientOrConflict(context, routedRequest(requestData, { method: 'PATCH', url, body: changes }));
	};

	// Shared by the items of the execution: each explains a failure of the listing as its own.
	const listing = sharedInExecution(context, 'clientsByReference', async () => {
		const listed = new ClientsByReference();
		await listInto(context, requestData, listed, created.conflict);
		return listed;
	});
	const index = await orExplained(context, listing);
	const updated = await updateHolder(index);
	if (updated && 'client' in updated) return updated.client;

	await orExplained(context, listInto(context, requestData, index, updated?.conflict ?? created.conflict));
	const retried = await updateHolder(index);
	if (retried && 'client' in retried) return retried.client;
	throw changedHands(context, referenceNumber);
}

export async function createOrUpdate(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const body = requestData.options.body as IDataObject;
	body.referenceNumber = checkRequired(body.referenceNumber, REFERENCE_NUMBER, {
		node: this.getNode(),
		itemIndex: this.getItemIndex(),
	});
	const client = await createdOrUpdated(this, requestData, body.referenceNumber);
	return [{ json: recordOutput(this, 'client')(client) }];
}
