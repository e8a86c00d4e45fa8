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
}

export interface Poller {
	/** One poll as n8n's poll executor runs it: the items emitted, or null when none. */
	poll(): Promise<INodeExecutionData[][] | null>;
	/** The workflow's static data as n8n last saved it. */
	savedStaticData(): IDataObject;
	/** n8n restarted: the workflow is rebuilt from the saved static data only. */
	restart(): void;
}

/**
 * Runs a polling trigger as an active n8n workflow does: a PollContext on a real Workflow whose
 * static data persists from poll to poll, driven by n8n-core's PollTriggerExecutor (which emits
 * the items or, with none, commits the staged cursor). n8n saves the static data when a poll
 * emits or commits; `restart()` keeps only what was saved.
 */
export function createPoller({ nodeType, nodeTypes, parameters, credentials }: PollerOptions): Poller {
	const node = nodeUnderTest({ nodeType, parameters: parameters as never, credentials });
	let saved: IDataObject = {};
	let workflow: Workflow;
	const restart = () => {
		workflow = workflowWith(node, nodeTypes, { staticData: deepCopy(saved) });
	};
	restart();
	const save = () => {
		saved = deepCopy(workflow.staticData) as IDataObject;
	};

	return {
		async poll() {
			let emitted: INodeExecutionData[][] | null = null;
			let failure: Error | undefined;
			const additionalData = additionalDataFor(credentials, 'trigger', {} as never);
			const context = new PollContext(
				workflow,
				node,
				additionalData,
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
			);
			const runPoll = Container.get(PollTriggerExecutor).create(workflow, node, context, () => true);
			await runPoll();
			if (failure) throw failure;
			return emitted;
		},
		savedStaticData: () => deepCopy(saved),
		restart,
	};
}
