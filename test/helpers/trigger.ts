import { WorkflowExecute } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';
import { createRunExecutionData, UnexpectedError } from 'n8n-workflow';

import { ComplianceRecords } from '../../nodes/ComplianceRecords/ComplianceRecords.node.ts';
import { ComplianceRecordsTrigger } from '../../nodes/ComplianceRecords/ComplianceRecordsTrigger.node.ts';
import type { LoggedRequest, Sandbox } from 'compliance-records-sandbox';
import { forwardingProxy, type ProxyAnswer } from './forwardingProxy';
import { credentialsFor } from './credentials';
import { additionalDataFor, TestNodeTypes, workflowWith } from './engine';
import { createPoller, type PollerOptions } from './poll';
import { nodeUnderTest } from './runNode';
import { SETUP_HEADER } from './serviceApi';

/*
 * The Compliance Records Trigger in n8n's engine, as its tests see it: the JSON it emits, its
 * own node static data (saved, or in memory), a saved state to start again from, and a manual
 * "Fetch Test Event".
 */

const nodeTypes = new TestNodeTypes([new ComplianceRecords(), new ComplianceRecordsTrigger()]);

/** The trigger's poller as poll.ts runs any polling node; its version 1 (0.1.0's) unless given. */
export type TriggerPollerOptions = Omit<PollerOptions, 'nodeType' | 'nodeTypes'>;

export interface TriggerPoller {
	/** One poll through n8n-core's poll executor: the JSON of the items emitted ([] when none). */
	poll(): Promise<IDataObject[]>;
	/** The poll n8n runs on activating the workflow; see {@link poll}. */
	activate(): Promise<IDataObject[]>;
	/** The workflow's static data ('global') as n8n last saved it. */
	savedWorkflowData(): IDataObject;
	/** The trigger node's static data as n8n last saved it. */
	saved(): IDataObject;
	/** The trigger node's static data in memory, saved or not. */
	inMemory(): IDataObject;
	/**
	 * n8n restarted from this saved node static data (or re-ran a tick from it), and this
	 * workflow static data ('global'; none when absent).
	 */
	load(saved: IDataObject, workflowData?: IDataObject): void;
	/**
	 * "Fetch Test Event": n8n's WorkflowExecute runs the workflow in manual mode, on a workflow
	 * holding the trigger's current static data; `staticData` is that node's static data after.
	 */
	fetchTestEvent(): Promise<{ json: IDataObject[]; error?: Error; staticData: IDataObject }>;
}

export function createTriggerPoller(options: TriggerPollerOptions): TriggerPoller {
	const { parameters, credentials, timezone, typeVersion } = options;
	const nodeType = new ComplianceRecordsTrigger();
	const poller = createPoller({ ...options, nodeType, nodeTypes });
	const node = nodeUnderTest({
		nodeType,
		parameters: parameters as never,
		credentials,
		typeVersion,
	});
	const key = `node:${node.name}`;
	const ofNode = (staticData: IDataObject) => (staticData[key] ?? {}) as IDataObject;

	return {
		async poll() {
			return (await poller.poll())?.[0]?.map((item) => item.json) ?? [];
		},
		async activate() {
			return (await poller.activate())?.[0]?.map((item) => item.json) ?? [];
		},
		savedWorkflowData: () => (poller.savedStaticData().global ?? {}) as IDataObject,
		saved: () => ofNode(poller.savedStaticData()),
		inMemory: () => ofNode(poller.staticData()),
		load: (saved, workflowData) =>
			poller.restart({ [key]: saved, ...(workflowData && { global: workflowData }) }),
		async fetchTestEvent() {
			const workflow = workflowWith(node, nodeTypes, { staticData: poller.staticData(), timezone });
			const runExecutionData = createRunExecutionData({
				executionData: {
					nodeExecutionStack: [{ node, data: { main: [[{ json: {} }]] }, source: null }],
				},
			});
			const workflowData = {
				id: workflow.id,
				name: workflow.name,
				nodes: [node],
				connections: {},
			} as never;
			const additionalData = additionalDataFor(credentials, 'manual', workflowData);
			const run = await new WorkflowExecute(
				additionalData,
				'manual',
				runExecutionData,
			).processRunExecutionData(workflow);
			const task = run.data.resultData.runData[node.name]?.[0];
			if (!task)
				throw new UnexpectedError('The trigger did not run', {
					extra: { error: run.data.resultData.error },
				});
			return {
				json: (task.data?.main[0] ?? []).map((item) => item.json),
				error: task.error ?? run.data.resultData.error,
				staticData: ofNode(JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject),
			};
		},
	};
}

/** A later-page hook may answer instead of the sandbox (a malformed page, say). */
type PageHook = (page: number) => Promise<ProxyAnswer | void> | ProxyAnswer | void;

/**
 * A pass-through proxy in front of the sandbox that runs a hook before forwarding each request
 * for a page after the first (`GET /clients` with a cursor): a deterministic way to change
 * clients, or break the answer, while a poll is paging. Point credentials at it with
 * `credentials()`.
 */
export async function pageHookProxy(sandbox: Sandbox) {
	let beforePage: PageHook = () => undefined;
	let laterPages = 0;
	let dateHeader = true;
	const upstream = new URL(sandbox.baseUrl);
	const apiPath = upstream.pathname.replace(/\/$/, '');

	const proxy = await forwardingProxy(sandbox.baseUrl, {
		before: async ({ method, url }) => {
			if (
				method !== 'GET' ||
				url.pathname !== `${apiPath}/clients` ||
				!url.searchParams.has('cursor')
			)
				return;
			laterPages++;
			return await beforePage(laterPages + 1);
		},
		keepsDate: () => dateHeader,
	});
	const baseUrl = `${proxy.origin}${apiPath}`;

	return {
		credentials: () => credentialsFor({ ...sandbox, baseUrl }),
		/** Whether answers keep the service's `Date` header (a service behind a proxy that drops it). */
		sendDate(send: boolean) {
			dateHeader = send;
		},
		/** Runs before each later page of every listing; reset with `onLaterPage(() => undefined)`. */
		onLaterPage(hook: PageHook) {
			beforePage = hook;
			laterPages = 0;
		},
		close: proxy.close,
	};
}

/** The requests the trigger sent (the tests' own setup requests left out). */
export function triggerRequests(sandbox: Sandbox): LoggedRequest[] {
	return sandbox.requests().filter((request) => request.headers[SETUP_HEADER] === undefined);
}
