import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	INodeExecutionData,
	NodeOperationError,
} from 'n8n-workflow';

import { checkRequired } from '../../../helpers/checks';
import { sharedInExecution } from '../../../helpers/execution';
import { shaperOf } from '../../../helpers/output';
import { operationError, routedRequest, routedSend } from '../../../helpers/routing';
import { serviceTimeFromDate } from '../../../helpers/serviceTime';
import {
	createdByEarlierAttempt,
	type EarlierAttempt,
	routedWrite,
	writtenOnce,
} from '../../../helpers/writes';
import { headerOf, type ServiceAnswer } from '../../../transport/answers';
import { itemError, type OperationWording } from '../../../transport/errors';
import { answerIn } from '../../../transport/failures';
import { clientWording } from '../create';
import { clientCreates, clientReadBack } from '../writes';
import { type SharedIndex, listInto } from './executionIndex';
import { processIndexFor } from './processIndex';
import type { ClientsByReference } from './referenceIndex';

// The service has no lookup by reference number: docs/create-or-update.md.

export const REFERENCE_NUMBER = 'Reference Number';

const upsertWording: OperationWording = {
	...clientWording,
	mayHaveActed: {
		...clientWording.mayHaveActed,
		POST: "The service may have created the client before this happened, so the node did not send it again. Running the node again is safe: the service refuses a second client with the 'Reference Number', and the node updates the one that has it. To check first, Client > Get Many with 'Modified Since' set to a time before this run lists it.",
	},
};

const answeredAtOf = (answer: ServiceAnswer) =>
	serviceTimeFromDate(headerOf(answer.headers, 'date'), 0) ?? -Infinity;

async function orExplained<T>(context: IExecutePaginationFunctions, work: Promise<T>): Promise<T> {
	try {
		return await work;
	} catch (error) {
		throw await operationError(context, error, { wording: upsertWording });
	}
}

type Outcome = { client: IDataObject } | { refused: ServiceAnswer };

async function clientOrRefusal(
	context: IExecutePaginationFunctions,
	request: DeclarativeRestApiSettings.ResultOptions,
	refusals = [409],
): Promise<Outcome> {
	try {
		const [answer] =
			request.options.method === 'GET'
				? await routedSend(context, request)
				: await routedWrite(context, request, clientReadBack);
		return { client: (answer.json as IDataObject).data as IDataObject };
	} catch (error) {
		const answer = answerIn(error);
		if (answer && refusals.includes(answer.status)) return { refused: answer };
		throw await operationError(context, error, { wording: upsertWording });
	}
}

function changedHands(
	context: IExecutePaginationFunctions,
	referenceNumber: string,
): NodeOperationError {
	return itemError(
		context.getNode(),
		context.getItemIndex(),
		`'${REFERENCE_NUMBER}' "${referenceNumber}" changed hands while the node ran, so no client was updated`,
		'Another user or system gave the number to another client, or took it away, at the same time. Run the node again: it updates the client that has the number then, or creates one if none has.',
	);
}

async function holdsReference(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	index: ClientsByReference,
	holder: string,
	referenceNumber: string,
): Promise<boolean> {
	const url = `/clients/${encodeURIComponent(holder)}`;
	const read = await clientOrRefusal(
		context,
		routedRequest(requestData, { method: 'GET', url, body: undefined }),
		[404],
	);
	if ('refused' in read) {
		index.forget(holder);
		return false;
	}
	index.learn(read.client);
	return read.client.referenceNumber === referenceNumber;
}

async function createdOrUpdated(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	referenceNumber: string,
	shared: SharedIndex,
	earlier?: EarlierAttempt,
): Promise<IDataObject> {
	const { index } = shared;
	// The reference number stays: it makes the update conditional. An update cannot change the entity.
	const changes = { ...(requestData.options.body as IDataObject) };
	delete changes.entity;
	if (context.getNodeParameter('updateStatus', false) !== true) delete changes.status;
	const update = async (holder: string, refusals?: number[]) => {
		const url = `/clients/${encodeURIComponent(holder)}`;
		return await clientOrRefusal(
			context,
			routedRequest(requestData, { method: 'PATCH', url, body: changes }),
			refusals,
		);
	};
	const answered = (client: IDataObject, created: boolean) => {
		index.learnAnswer(client, referenceNumber, { created });
		return client;
	};

	if (Number.isFinite(index.listedUntil) && index.holderOf(referenceNumber) !== undefined) {
		const complete = await orExplained(context, shared.checked(context, requestData));
		const holder = index.holderOf(referenceNumber);
		if (
			holder !== undefined &&
			(complete || (await holdsReference(context, requestData, index, holder, referenceNumber)))
		) {
			const updated = await update(holder, [404, 409]);
			if ('client' in updated) return answered(updated.client, false);
			if (updated.refused.status === 404) index.forget(holder);
		}
	}

	const sentAt = Date.now();
	const created = await clientOrRefusal(context, requestData);
	if ('client' in created) return answered(created.client, true);
	const own =
		earlier &&
		(await orExplained(
			context,
			createdByEarlierAttempt(context, requestData, clientCreates, earlier, {
				refusal: created.refused,
				sentAt,
			}),
		));
	if (own) return answered(own, true);

	// Shared by the items waiting: each explains a failure of the listing as its own.
	await orExplained(
		context,
		shared.holderListed(context, requestData, referenceNumber, answeredAtOf(created.refused)),
	);
	const updateHolder = async () => {
		const holder = index.holderOf(referenceNumber);
		return holder === undefined ? undefined : await update(holder);
	};
	const updated = await updateHolder();
	if (updated && 'client' in updated) return answered(updated.client, false);

	const answeredAt = answeredAtOf((updated ?? created).refused);
	await orExplained(
		context,
		listInto(context, requestData, index, index.listedUntil, { answeredAt }),
	);
	const retried = await updateHolder();
	if (retried && 'client' in retried) return answered(retried.client, false);
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
	const referenceNumber = body.referenceNumber;
	const shared = await orExplained(
		this,
		sharedInExecution(this, 'referenceIndex', async () => await processIndexFor(this)),
	);
	const client = await shared.during(
		async () =>
			await writtenOnce(
				this,
				requestData,
				'/clients',
				async (earlier) =>
					await createdOrUpdated(this, requestData, referenceNumber, shared, earlier),
			),
	);
	return [{ json: shaperOf(this, 'client')(client) }];
}
