import type { IDataObject, WorkflowExecuteMode } from 'n8n-workflow';

import { runNode, type NodeRun, type NodeUnderTest, type RunOptions } from './runNode';

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
	 * otherwise: `mode` 'manual' (from the editor), `active` false (as n8n 2.40's queue-mode
	 * workers see it), `staticDataLoaded` false (an empty copy, as a queue-mode worker's new
	 * execution or an execution resumed after a Wait gets it, which n8n still saves back whole).
	 */
	run(options?: Omit<RunOptions, 'staticData'> & { staticDataLoaded?: boolean }): Promise<NodeRun>;
	/** The workflow's whole static data as n8n last saved it: every node's. */
	staticData(): IDataObject;
}

/** `staticData`: the workflow's static data before its first execution (another node's state, say). */
export function savedWorkflow(node: NodeUnderTest, staticData: IDataObject = {}): SavedWorkflow {
	// The database column holds JSON: each execution reads its own copy.
	let row = JSON.stringify(staticData);
	const saved = () => JSON.parse(row) as IDataObject;
	return {
		async run({
			mode = 'webhook' as WorkflowExecuteMode,
			active = true,
			staticDataLoaded = true,
			...options
		} = {}) {
			const run = await runNode({
				...node,
				...options,
				mode,
				active,
				staticData: staticDataLoaded ? saved() : {},
			});
			if (mode !== 'manual' && run.changedStaticData) row = JSON.stringify(run.changedStaticData);
			return run;
		},
		staticData: saved,
	};
}
