import { Container } from '@n8n/di';
import { PollContext, PollTriggerExecutor } from 'n8n-core';
import type { IDataObject, INodeExecutionData, INodeType, Workflow } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { additionalDataFor, type TestNodeTypes, workflowWith } from './engine';
import type { CredentialStore } from './credentials';
import { nodeUnderTest } from './runNode';

export interface PollerOptions {
	nodeType: INodeType;
	nodeTypes: TestNodeTypes;
	parameters: IDataObject;
	credentials: CredentialStore;
	/** The workflow's time zone setting; n8n's default zone when absent. */
	timezone?: string;
	/** What `getPollBudgetMs()` answers; n8n's default (5 minutes) when absent. */
	budgetMs?: number;
}

export interface Poller {
	/** One poll as n8n's poll executor runs it: the items emitted, or null when none. */
	poll(): Promise<INodeExecutionData[][] | null>;
	/** The workflow's static data as n8n last saved it. */
	savedStaticData(): IDataObject;
	/** The workflow's static data in memory, saved or not. */
	staticData(): IDataObject;
	/**
	 * n8n restarted: the workflow is rebuilt from what was saved, or from the given static data
	 * (e.g. an older save, as when a scheduler runs one occurrence twice).
	 */
	restart(from?: IDataObject): void;
}

/**
 * Runs a polling trigger as an active n8n workflow does: a PollContext on a real Workflow whose
 * static data persists from poll to poll, driven by n8n-core's PollTriggerExecutor (which emits
 * the items or, with none, commits the staged cursor). n8n saves the static data when a poll
 * emits or commits; `restart()` keeps only what was saved.
 */
export function createPoller({ nodeType, nodeTypes, parameters, credentials, timezone, budgetMs }: PollerOptions): Poller {
	const node = nodeUnderTest({ nodeType, parameters: parameters as never, credentials });
	let saved: IDataObject = {};
	let workflow: Workflow;
	const restart = (from: IDataObject = saved) => {
		saved = deepCopy(from);
		workflow = workflowWith(node, nodeTypes, { staticData: deepCopy(saved), timezone });
	};
	restart();
	const save = () => {
		saved = deepCopy(workflow.staticData) as IDataObject;
	};

	return {
		async poll() {
			let emitted: INodeExecutionData[][] | null = null;
			let failure: Error | undefined;
			const context = new PollContext(
				workflow,
				node,
				additionalDataFor(credentials, 'trigger', { id: workflow.id, name: workflow.name, nodes: [node], connections: {} } as never),
				'trigger',
				'activate',
				(data) => {
					emitted = data;
					save();
				},
				(error) => {
					failure = error;
				},
				async () => save(),
				undefined,
				undefined,
				budgetMs === undefined ? undefined : () => budgetMs,
			);
			const runPoll = Container.get(PollTriggerExecutor).create(workflow, node, context, () => true);
			await runPoll();
			if (failure) throw failure;
			return emitted;
		},
		savedStaticData: () => deepCopy(saved),
		staticData: () => deepCopy(workflow.staticData) as IDataObject,
		restart,
	};
}
