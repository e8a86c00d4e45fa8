/* eslint-disable @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
import type {
	INode,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { DirectoryLoader, ExecutionLifecycleHooks, RoutingNode } from 'n8n-core';
import { NodeConnectionTypes, UnexpectedError, Workflow } from 'n8n-workflow';

import { ComplianceRecords } from '../../nodes/ComplianceRecords/ComplianceRecords.node.ts';
import type { CredentialStore } from './credentials';

/**
 * The pieces of an n8n instance a node needs to run in n8n-core's own engine: registered node
 * types, a workflow around the node, and the "additional data" an execution carries (the
 * credentials helper above all). Requests go out for real, to the sandbox.
 */

// n8n's error reporter logs every node error to the console; the tests assert errors instead.
process.env.N8N_LOG_LEVEL ??= 'silent';

/** The prefix n8n gives this package's node types once installed. */
export const PACKAGE_NAME = 'n8n-nodes-compliance-records';

export const nodeTypeName = (nodeType: INodeType) => `${PACKAGE_NAME}.${nodeType.description.name}`;

/** Descriptions given n8n's Request Options: instances of a node share one, and adding them twice doubles them. */
const withRequestOptions = new WeakSet<object>();

/**
 * A node type as n8n's loader hands it on: a declarative node gets n8n's Request Options
 * (timeout, proxy, batching), once per process as n8n's loader does, and an `execute` that runs RoutingNode.
 */
function asLoaded(nodeType: INodeType): INodeType {
	const { properties } = nodeType.description;
	if (!withRequestOptions.has(properties)) {
		DirectoryLoader.applyDeclarativeNodeOptionParameters(nodeType);
		withRequestOptions.add(properties);
	}
	if (nodeType.execute || nodeType.poll || nodeType.trigger || nodeType.webhook) return nodeType;
	nodeType.execute = async function (this: ConstructorParameters<typeof RoutingNode>[0]) {
		return (await new RoutingNode(this, nodeType).runNode()) ?? [];
	};
	return nodeType;
}

export class TestNodeTypes implements INodeTypes {
	private readonly byName = new Map<string, INodeType>();

	constructor(nodeTypes: INodeType[]) {
		for (const nodeType of nodeTypes) this.byName.set(nodeTypeName(nodeType), asLoaded(nodeType));
	}

	getByName(type: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(type);
	}

	getByNameAndVersion(type: string): INodeType {
		const nodeType = this.byName.get(type);
		if (!nodeType) throw new UnexpectedError(`Unknown node type "${type}" in the test registry`);
		return nodeType;
	}

	getKnownTypes() {
		return {};
	}
}

/**
 * The tool n8n makes of a `usableAsTool` node for an AI Agent or an MCP Server Trigger (n8n
 * 2.40.7's `convertNodeToAiTool`, in the n8n package, read in its source): the same node named
 * `<name>Tool`, with no input and an AI tool output. That name is what n8n's '@tool' display
 * condition reads; the Description parameters n8n adds for the model are left out.
 */
export function asAiTool(nodeType: INodeType): INodeType {
	const { description } = nodeType;
	return Object.create(nodeType, {
		description: {
			value: {
				...description,
				name: `${description.name}Tool`,
				displayName: `${description.displayName} Tool`,
				inputs: [],
				outputs: [NodeConnectionTypes.AiTool],
				properties: [...description.properties],
			},
		},
	}) as INodeType;
}

/** The node types of this package that tests run; the trigger helper adds its own. */
export const defaultNodeTypes = () => new TestNodeTypes([new ComplianceRecords()]);

export interface WorkflowOptions {
	staticData?: IWorkflowBase['staticData'];
	/** Whether the workflow is published (active); not unless told. */
	active?: boolean;
	/** The workflow's time zone setting; n8n's default zone when absent. */
	timezone?: string;
}

/** A one-node workflow, as n8n builds one to run or to load a node's dropdowns. */
export function workflowWith(
	node: INode,
	nodeTypes: INodeTypes,
	{ staticData = {}, timezone, active = false }: WorkflowOptions = {},
): Workflow {
	return new Workflow({
		id: 'test-workflow',
		name: 'Test workflow',
		nodes: [node],
		connections: {},
		active,
		nodeTypes,
		staticData,
		settings: { executionOrder: 'v1', ...(timezone && { timezone }) },
	});
}

const notAvailable = (what: string) => () => {
	throw new UnexpectedError(`${what} is not available in the test engine`);
};

let executions = 0;

/** What n8n's server hands an execution; each gets its own ID, as n8n numbers them. */
export function additionalDataFor(
	credentials: CredentialStore,
	mode: WorkflowExecuteMode,
	workflow: IWorkflowBase,
): IWorkflowExecuteAdditionalData {
	const executionId = String(++executions);
	return {
		credentialsHelper: credentials,
		hooks: new ExecutionLifecycleHooks(mode, executionId, workflow),
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678',
		formBaseUrl: 'http://localhost:5678/form',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		formTestBaseUrl: 'http://localhost:5678/form-test',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		mcpBaseUrl: 'http://localhost:5678/mcp',
		mcpTestBaseUrl: 'http://localhost:5678/mcp-test',
		variables: {},
		executeWorkflow: notAvailable('Executing a sub-workflow'),
		getRunExecutionData: notAvailable('Reading another execution'),
		getRuntimeCredential: notAvailable('A runtime credential'),
		logAiEvent: notAvailable('AI event logging'),
	} as unknown as IWorkflowExecuteAdditionalData;
}
