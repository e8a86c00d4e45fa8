/* eslint-disable @n8n/community-nodes/require-node-api-error, @n8n/community-nodes/no-restricted-globals -- development tooling, not a node: runs in Node, not in n8n */
import { LoadOptionsContext, WorkflowExecute, WorkflowHasIssuesError } from 'n8n-core';
import type {
	ExecutionBaseError,
	IDataObject,
	IRun,
	IRunExecutionData,
	INode,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodePropertyOptions,
	INodeType,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, UnexpectedError } from 'n8n-workflow';

import { ComplianceRecords } from '../../nodes/ComplianceRecords/ComplianceRecords.node.ts';
import { nodeCredentials, type CredentialStore } from './credentials';
import {
	additionalDataFor,
	defaultNodeTypes,
	nodeTypeName,
	type TestNodeTypes,
	workflowWith,
} from './engine';

export interface NodeUnderTest {
	parameters: INodeParameters;
	credentials: CredentialStore;
	/** The node type; the Compliance Records node unless given. */
	nodeType?: INodeType;
	nodeTypes?: TestNodeTypes;
	/** The node's "On Error: Continue" setting. */
	continueOnFail?: boolean;
	/** The node's "Retry On Fail" setting, with its Max. Tries and Wait Between Tries (ms). */
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
	/** The node's version (typeVersion); 1 (0.1.0's) unless given. Version 2 is what a node added in the editor gets. */
	typeVersion?: number;
}

export function nodeUnderTest({
	parameters,
	nodeType = new ComplianceRecords(),
	continueOnFail,
	retryOnFail,
	typeVersion = 1,
}: NodeUnderTest): INode {
	return {
		id: 'node-under-test',
		name: nodeType.description.defaults.name ?? nodeType.description.displayName,
		type: nodeTypeName(nodeType),
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: nodeCredentials(),
		continueOnFail,
		...(retryOnFail && { retryOnFail: true, ...retryOnFail }),
	};
}

export interface NodeRun {
	/** What the node output, item by item (error items included with Continue On Fail). */
	items: INodeExecutionData[];
	/** The records output: each item's JSON. */
	json: IDataObject[];
	/** The error that stopped the execution, as n8n recorded it (or n8n's refusal to start it). */
	error?: ExecutionBaseError | WorkflowHasIssuesError;
	/** The workflow's static data if the run changed it: what n8n-core hands n8n to save after the execution. */
	changedStaticData?: IDataObject;
	/** The execution's data as n8n saves it (JSON), which a Retry from the executions list starts from; made when asked, as a large run's is tens of MB. */
	saved: () => string;
}

export interface RunOptions {
	input?: IDataObject[];
	timezone?: string;
	/** How the execution was started; 'manual' (from the editor) unless given. */
	mode?: WorkflowExecuteMode;
	/** The workflow's static data as the execution starts. */
	staticData?: IDataObject;
	/** Whether the workflow is published (active); not unless told. */
	active?: boolean;
	/** Cancels the execution this long after it starts, as a user stopping it in the editor. */
	cancelAfterMs?: number;
	/**
	 * A failed run to retry as the executions list's Retry does (n8n 2.40.7 and 1.123.81,
	 * `ExecutionService.retry`): its saved data, the failed run of the node removed, in mode 'retry'.
	 */
	retryOf?: NodeRun;
}

/** The saved data of a failed execution as n8n's Retry hands it to WorkflowExecute. */
function retriedExecutionData({ saved }: NodeRun): IRunExecutionData {
	const data = JSON.parse(saved()) as IRunExecutionData;
	const { lastNodeExecuted, runData } = data.resultData;
	delete data.resultData.error;
	if (lastNodeExecuted && runData[lastNodeExecuted]?.at(-1)?.error !== undefined)
		runData[lastNodeExecuted].pop();
	return data;
}

/**
 * Runs the node as n8n runs a workflow: n8n-core's WorkflowExecute on an n8n-workflow Workflow,
 * the node receiving `input` as the items of the node before it.
 */
export async function runNode(options: NodeUnderTest & RunOptions): Promise<NodeRun> {
	const { staticData, timezone, active, retryOf } = options;
	const mode = retryOf ? 'retry' : (options.mode ?? 'manual');
	const node = nodeUnderTest(options);
	const workflow = workflowWith(node, options.nodeTypes ?? defaultNodeTypes(), {
		staticData,
		timezone,
		active,
	});
	const additionalData = additionalDataFor(options.credentials, mode, {
		id: workflow.id,
		name: workflow.name,
		nodes: [node],
		connections: {},
	} as never);
	const input = (options.input ?? [{}]).map((json) => ({ json }));
	const runExecutionData = retryOf
		? retriedExecutionData(retryOf)
		: createRunExecutionData({
				executionData: { nodeExecutionStack: [{ node, data: { main: [input] }, source: null }] },
			});

	let changedStaticData: IDataObject | undefined;
	additionalData.hooks?.addHandler('workflowExecuteAfter', async (_run, newStaticData) => {
		changedStaticData = newStaticData;
	});
	let run: IRun;
	try {
		const execution = new WorkflowExecute(
			additionalData,
			mode,
			runExecutionData,
		).processRunExecutionData(workflow);
		const { cancelAfterMs } = options;
		if (cancelAfterMs !== undefined) setTimeout(() => execution.cancel(), cancelAfterMs);
		run = await execution;
	} catch (error) {
		// n8n checks the node's parameters (e.g. a required field left empty) before running it.
		if (error instanceof WorkflowHasIssuesError)
			return { items: [], json: [], error, saved: () => '' };
		throw error;
	}
	const saved = () => JSON.stringify(run.data);
	const task = run.data.resultData.runData[node.name]?.[0];
	if (!task && run.status === 'canceled')
		return { items: [], json: [], error: run.data.resultData.error, saved };
	if (!task)
		throw new UnexpectedError('The node did not run', {
			extra: { error: run.data.resultData.error },
		});
	const items = task.data?.main[0] ?? [];
	return {
		items,
		json: items.map((item) => item.json),
		error: (task.error ?? run.data.resultData.error) as ExecutionBaseError | undefined,
		changedStaticData,
		saved,
	};
}

/** The context n8n's server gives a node's methods when the editor asks it to fill a list. */
function editorRequestContext(options: NodeUnderTest) {
	const node = nodeUnderTest(options);
	const nodeTypes = options.nodeTypes ?? defaultNodeTypes();
	const workflow = workflowWith(node, nodeTypes);
	const additionalData = additionalDataFor(options.credentials, 'internal', {} as never);
	additionalData.currentNodeParameters = node.parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
	return { context, methods: nodeTypes.getByNameAndVersion(node.type).methods };
}

/** Fills a dropdown the way the editor asks n8n to: the node's `loadOptions` method in a LoadOptionsContext. */
export async function loadOptions(
	method: string,
	options: NodeUnderTest,
): Promise<INodePropertyOptions[]> {
	const { context, methods } = editorRequestContext(options);
	const loader = methods?.loadOptions?.[method];
	if (!loader) throw new UnexpectedError(`The node has no loadOptions method "${method}"`);
	return await loader.call(context);
}

/**
 * One call of a resource locator's list, as the editor asks n8n for it when the list opens, when
 * the user types a search (`filter`) and when they scroll to its end (`paginationToken`, from the
 * call before): the node's `listSearch` method in a LoadOptionsContext.
 */
export async function listSearch(
	method: string,
	options: NodeUnderTest & { filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	const { context, methods } = editorRequestContext(options);
	const search = methods?.listSearch?.[method];
	if (!search) throw new UnexpectedError(`The node has no listSearch method "${method}"`);
	return await search.call(context, options.filter, options.paginationToken);
}
