import type { IDataObject, WorkflowExecuteMode } from 'n8n-workflow';

import {
	nodeUnderTest,
	runNode,
	type NodeRun,
	type NodeUnderTest,
	type RunOptions,
} from './runNode';

/**
 * A published workflow that n8n runs again and again, as it runs one in production (n8n 2.40.7,
 * read in its source: workflow-runner loads the static data from the workflow's database row
 * when an execution starts; execution-lifecycle-hooks' hookFunctionsSave writes it back whole
 * when the execution changed it, failed executions included, never after a manual one). Each
 * execution starts from a copy of the last save, as read back from the database.
 */
export interface SavedWorkflow {
	/**
	 * One execution of the node: a webhook's (production) of the published workflow unless told
	 * otherwise: `mode` 'manual' (from the editor), or `active` false (as n8n 2.40's queue-mode
	 * workers see it).
	 */
	run(options?: Omit<RunOptions, 'staticData'>): Promise<NodeRun>;
	/** The node's static data as n8n last saved it. */
	saved(): IDataObject;
	/** The node's static data written over, as another execution's save or an older copy of the workflow would. */
	overwrite(nodeStaticData: IDataObject): void;
}

export function savedWorkflow(node: NodeUnderTest): SavedWorkflow {
	const nodeKey = `node:${nodeUnderTest(node).name}`;
	// The database column holds JSON: each execution reads its own copy.
	let row = '{}';
	const saved = () => JSON.parse(row) as IDataObject;
	return {
		async run({ mode = 'webhook' as WorkflowExecuteMode, active = true, ...options } = {}) {
			const run = await runNode({ ...node, ...options, mode, active, staticData: saved() });
			if (mode !== 'manual' && run.changedStaticData) row = JSON.stringify(run.changedStaticData);
			return run;
		},
		saved: () => (saved()[nodeKey] ?? {}) as IDataObject,
		overwrite(nodeStaticData) {
			row = JSON.stringify({ ...saved(), [nodeKey]: nodeStaticData });
		},
	};
}
