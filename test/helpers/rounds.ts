/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/node-usable-as-tool --
   development tooling, not a node: runs in Node, not in n8n; a test's step, never a tool */
import { setTimeout as sleep } from 'node:timers/promises';

import { WorkflowExecute } from 'n8n-core';
import type {
	ExecutionBaseError,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { ComplianceRecords } from '../../nodes/ComplianceRecords/ComplianceRecords.node.ts';
import { additionalDataFor, TestNodeTypes } from './engine';
import { nodeUnderTest, type NodeUnderTest } from './runNode';

/**
 * Hands the node after it one batch a run, pausing before every batch but the first, as n8n's
 * Loop Over Items with a slow step in the loop; no output once the batches are over.
 */
class Rounds implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Rounds',
		name: 'rounds',
		group: ['transform'],
		version: 1,
		description: 'One batch of items a run (tests)',
		defaults: { name: 'Rounds' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Batches', name: 'batches', type: 'json', default: '[]' },
			{ displayName: 'Pause', name: 'pauseMs', type: 'number', default: 0 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const store = this.getContext('node');
		const round = (store.round as number | undefined) ?? 0;
		store.round = round + 1;
		const batches = this.getNodeParameter('batches', 0) as IDataObject[][];
		if (round >= batches.length) return [[]];
		if (round > 0) await sleep(this.getNodeParameter('pauseMs', 0) as number);
		return [batches[round].map((json) => ({ json }))];
	}
}

export interface Round {
	json: IDataObject[];
	error?: ExecutionBaseError;
}

/**
 * Runs the node once per batch in one execution (n8n-core's WorkflowExecute, the node's output
 * going back to the rounds), pausing `pauseMs` between runs: what the node output at each run.
 */
export async function runInRounds(
	options: NodeUnderTest & { batches: IDataObject[][]; pauseMs: number },
): Promise<Round[]> {
	const node = nodeUnderTest(options);
	const rounds = {
		id: 'rounds',
		name: 'Rounds',
		type: 'n8n-nodes-compliance-records.rounds',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: { batches: options.batches as never, pauseMs: options.pauseMs },
	};
	const connections = {
		[rounds.name]: { main: [[{ node: node.name, type: NodeConnectionTypes.Main, index: 0 }]] },
		[node.name]: { main: [[{ node: rounds.name, type: NodeConnectionTypes.Main, index: 0 }]] },
	};
	const workflow = new Workflow({
		id: 'rounds-workflow',
		name: 'Rounds',
		nodes: [rounds, node],
		connections,
		active: false,
		nodeTypes: new TestNodeTypes([options.nodeType ?? new ComplianceRecords(), new Rounds()]),
		staticData: {},
		settings: { executionOrder: 'v1' },
	});
	const additionalData = additionalDataFor(options.credentials, 'manual', {
		id: workflow.id,
		name: workflow.name,
		nodes: workflow.nodes,
		connections,
	} as never);
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: rounds, data: { main: [[{ json: {} }]] }, source: null }],
		},
	});
	const run = await new WorkflowExecute(
		additionalData,
		'manual',
		runExecutionData,
	).processRunExecutionData(workflow);
	return (run.data.resultData.runData[node.name] ?? []).map((task) => ({
		json: (task.data?.main[0] ?? []).map((item) => item.json),
		error: task.error,
	}));
}
