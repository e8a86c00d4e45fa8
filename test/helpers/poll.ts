/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
import { Container } from '@n8n/di';
import { PollContext, PollTriggerExecutor } from 'n8n-core';
import type { IDataObject, INodeExecutionData, INodeType, Workflow } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { additionalDataFor, type TestNodeTypes, workflowWith } from './engine';
import type { CredentialStore } from './credentials';
import { nodeUnderTest } from './runNode';

/**
 * How n8n keeps a poll's static data between polls (read in n8n 2.40.7's source: n8n-core's
 * active-workflow-triggers and poll-trigger-executor, n8n's trigger-execution-context.factory,
 * poll-trigger-task-handler and poll-cursor.service):
 * - `in-memory`: n8n's in-memory poller. One Workflow object serves every poll; its static data
 *   is written to the database when a poll emits, and after the activation poll.
 * - `durable-scheduler`: N8N_SCHEDULER_ENABLED and N8N_SCHEDULER_POLL_TRIGGERS_ENABLED. Each tick
 *   loads the workflow's static data from the database; it is written back only when a poll
 *   emits (and after the activation poll).
 * - `durable-cursors`: the above and N8N_POLLER_DURABLE_CURSORS_ENABLED. The node's static data
 *   lives in a cursor row, created from the node's static data when first needed; each poll works
 *   on a copy, committed with the execution when it emits and on its own when it does not, except
 *   on the activation poll, where it is committed only if it emits. The workflow's static data
 *   ('global') is not staged: it is saved when a poll emits, and after the activation poll.
 * Without an engine, a poll's state is written whether it emits or not, and memory persists.
 */
export type PollEngine = 'in-memory' | 'durable-scheduler' | 'durable-cursors';

export interface PollerOptions {
	nodeType: INodeType;
	nodeTypes: TestNodeTypes;
	parameters: IDataObject;
	credentials: CredentialStore;
	/** The workflow's time zone setting; n8n's default zone when absent. */
	timezone?: string;
	/** What `getPollBudgetMs()` answers; n8n's default (5 minutes) when absent. */
	budgetMs?: number;
	engine?: PollEngine;
	/** The node's version (typeVersion); 1 unless given. */
	typeVersion?: number;
}

export interface Poller {
	/** One poll as n8n's poll executor runs it: the items emitted, or null when none. */
	poll(): Promise<INodeExecutionData[][] | null>;
	/** The poll n8n runs when it activates the workflow (errors thrown, not recorded). */
	activate(): Promise<INodeExecutionData[][] | null>;
	/** The workflow's static data as n8n last saved it (with durable cursors, the node's from its cursor row). */
	savedStaticData(): IDataObject;
	/** The workflow's static data in memory, saved or not (as saved, with a scheduler). */
	staticData(): IDataObject;
	/**
	 * n8n restarted: the workflow is rebuilt from what was saved, or from the given static data
	 * (e.g. an older save, as when a scheduler runs one occurrence twice).
	 */
	restart(from?: IDataObject): void;
}

/**
 * Runs a polling trigger as an active n8n workflow does: a PollContext on a real Workflow, driven
 * by n8n-core's PollTriggerExecutor (which emits the items or, with none, commits the staged
 * cursor), its static data kept as the chosen engine keeps it.
 */
export function createPoller({
	nodeType,
	nodeTypes,
	parameters,
	credentials,
	timezone,
	budgetMs,
	engine,
	typeVersion,
}: PollerOptions): Poller {
	const node = nodeUnderTest({
		nodeType,
		parameters: parameters as never,
		credentials,
		typeVersion,
	});
	const nodeKey = `node:${node.name}`;
	let saved: IDataObject = {};
	let cursorRow: IDataObject | undefined;
	let live: Workflow;
	const restart = (from: IDataObject = saved) => {
		saved = deepCopy(from);
		cursorRow =
			engine === 'durable-cursors' && saved[nodeKey] !== undefined
				? deepCopy(saved[nodeKey] as IDataObject)
				: undefined;
		live = workflowWith(node, nodeTypes, { staticData: deepCopy(saved), timezone });
	};
	restart();
	const save = (workflow: Workflow) => {
		saved = deepCopy(workflow.staticData) as IDataObject;
	};

	const run = async (activation: boolean) => {
		const workflow =
			engine === undefined || engine === 'in-memory'
				? live
				: workflowWith(node, nodeTypes, { staticData: deepCopy(saved), timezone });
		let staged: IDataObject | undefined;
		if (engine === 'durable-cursors') {
			cursorRow ??= deepCopy(workflow.getStaticData('node', node));
			staged = deepCopy(cursorRow);
		}
		const commitStaged = () => {
			if (staged) cursorRow = deepCopy(staged);
		};
		let emitted: INodeExecutionData[][] | null = null;
		let failure: Error | undefined;
		const context = new PollContext(
			workflow,
			node,
			additionalDataFor(credentials, 'trigger', {
				id: workflow.id,
				name: workflow.name,
				nodes: [node],
				connections: {},
			} as never),
			'trigger',
			'activate',
			(data) => {
				emitted = data;
				commitStaged();
				save(workflow);
			},
			(error) => {
				failure = error;
			},
			async () => {
				if (engine === undefined) save(workflow);
				commitStaged();
			},
			undefined,
			staged && (() => staged as IDataObject),
			budgetMs === undefined ? undefined : () => budgetMs,
		);
		const runPoll = Container.get(PollTriggerExecutor).create(workflow, node, context, () => true);
		await runPoll(activation);
		if (failure) throw failure;
		if (activation) save(workflow); // the activator saves the workflow's static data
		return emitted;
	};

	return {
		poll: async () => await run(false),
		activate: async () => await run(true),
		savedStaticData: () =>
			cursorRow ? { ...deepCopy(saved), [nodeKey]: deepCopy(cursorRow) } : deepCopy(saved),
		staticData: () =>
			engine === undefined || engine === 'in-memory'
				? (deepCopy(live.staticData) as IDataObject)
				: deepCopy(saved),
		restart,
	};
}
