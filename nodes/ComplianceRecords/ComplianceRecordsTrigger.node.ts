import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { authenticationProperty, serviceCredentials } from './authentication';
import { subtitleOf } from './descriptions/subtitle';
import {
	calendarDate,
	checkReviewDays,
	isInWindow,
	REVIEW_DUE_WITHIN,
	reviewWindow,
} from './helpers/dates';
import { shaperFor } from './helpers/output';
import { PollBudget } from './trigger/budget';
import { triggerProperties } from './trigger/description';
import {
	determinationCompletedAt,
	type EventTime,
	modifiedAt,
	pollChanges,
} from './trigger/events/changes';
import { pollReviewDue } from './trigger/events/reviewDue';
import { fetchFullClient } from './trigger/listing';
import type { Client } from './trigger/validation';
import {
	activationCopyKey,
	commitState,
	generationOf,
	keepActivationCopy,
	type SavedState,
	stateToResume,
	type TriggerEvent,
} from './trigger/state';
import { latestEvents } from './trigger/testEvent';

const STREAM_EVENT_TIMES: Record<Exclude<TriggerEvent, 'reviewDue'>, EventTime> = {
	clientModified: modifiedAt,
	amlDeterminationCompleted: determinationCompletedAt,
};

function nothingYet(event: TriggerEvent, reviewDays: number): { message: string; next: string } {
	const within = reviewDays === 0 ? 'today' : `in the next ${reviewDays} days`;
	switch (event) {
		case 'clientModified':
			return { message: 'The firm has no client yet', next: 'Create a client in the service' };
		case 'amlDeterminationCompleted':
			return {
				message: 'No client of the firm has a completed AML determination yet',
				next: "Complete a client's AML determination in the service",
			};
		case 'reviewDue':
			return {
				message: `No client has a next review date ${within}`,
				next: `Give a client a next review date ${within} in the service, or set '${REVIEW_DUE_WITHIN}' to more days`,
			};
	}
}

export class ComplianceRecordsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Compliance Records Trigger',
		name: 'complianceRecordsTrigger',
		icon: {
			light: 'file:../../icons/complianceRecords.svg',
			dark: 'file:../../icons/complianceRecords.dark.svg',
		},
		group: ['trigger'],
		// 1.1 simplifies its output by default; version 1 (0.1.0) emits the service's records.
		version: [1, 1.1],
		subtitle: subtitleOf(triggerProperties, ['event']),
		description:
			'Starts the workflow when a client changes, an AML determination completes or a review date nears, in the Client Compliance Records Service',
		defaults: { name: 'Compliance Records Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: serviceCredentials,
		properties: [authenticationProperty, ...triggerProperties],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const event = this.getNodeParameter('event') as TriggerEvent;
		const reviewDays =
			event === 'reviewDue'
				? checkReviewDays(this.getNodeParameter('days'), this.getNode())
				: undefined;
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const fetchesFullClient = options.fetchFullClient === true;

		const simplified = this.getNodeParameter('simplify', false) === true;
		const output = shaperFor(
			{ mode: simplified ? 'simple' : 'raw' },
			fetchesFullClient ? 'client' : 'clientListItem',
		);
		const budget = new PollBudget(this);
		const fullClient = fetchesFullClient
			? async (client: Client) => await fetchFullClient.call(this, budget, client.id)
			: undefined;

		if (this.getMode() === 'manual') {
			const sample = await latestEvents.call(
				this,
				budget,
				sampleEventTime(this, event, reviewDays ?? 0),
			);
			if (sample.length === 0) {
				const { message, next } = nothingYet(event, reviewDays ?? 0);
				throw new NodeOperationError(this.getNode(), message, {
					description: `${next}, then fetch a test event again.`,
				});
			}
			const shown: Client[] = [];
			for (const client of sample) shown.push(fullClient ? await fullClient(client) : client);
			return [this.helpers.returnJsonArray(shown.map(output))];
		}

		const staticData = this.getWorkflowStaticData('node');
		const workflowStaticData = this.getWorkflowStaticData('global');
		const nodeName = this.getNode().name;
		const startedFrom = generationOf(staticData);
		const saved = stateToResume(
			staticData,
			workflowStaticData[activationCopyKey(nodeName)],
			event,
			reviewDays,
		);

		// The host's clock only orders an activation copy against another configuration's state.
		const startedAt = saved ? saved.startedAt : Date.now();
		let emitted: Client[];
		let state: SavedState;
		if (event === 'reviewDue') {
			const days = reviewDays ?? 0;
			const result = await pollReviewDue.call(
				this,
				budget,
				saved?.event === 'reviewDue' ? saved.review : undefined,
				days,
				fullClient,
			);
			emitted = result.emitted;
			state = { event, reviewDays: days, review: result.state, startedAt };
		} else {
			const stream = saved?.event === event ? saved.stream : undefined;
			const result = await pollChanges.call(
				this,
				budget,
				stream,
				STREAM_EVENT_TIMES[event],
				fullClient,
			);
			emitted = result.emitted;
			state = { event, stream: result.state, startedAt };
		}

		if (!commitState(staticData, startedFrom, state)) return null;
		if (!saved) keepActivationCopy(workflowStaticData, nodeName, state);
		return emitted.length > 0 ? [this.helpers.returnJsonArray(emitted.map(output))] : null;
	}
}

/** What "most recent" means for each event in a manual run. */
function sampleEventTime(context: IPollFunctions, event: TriggerEvent, reviewDays: number) {
	if (event !== 'reviewDue') return (client: Client) => STREAM_EVENT_TIMES[event](context, client);
	const window = reviewWindow(calendarDate(Date.now(), context.getTimezone()), reviewDays);
	return (client: Client) =>
		isInWindow(window, client.nextReviewDate) ? modifiedAt(context, client) : undefined;
}
