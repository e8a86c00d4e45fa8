import type { IDataObject, IExecuteSingleFunctions, INodeExecutionData, PostReceiveAction } from 'n8n-workflow';

import { chosenOutput, outputFor, type Output, type RecordKind } from '../output';

/**
 * What the action node outputs, by version: 1 the service's records (it has no Simplify); 1.1
 * Simplify's flat records with every flat field; 2 Simplify's at most 10 fields, and, run as an
 * AI agent's tool, the Output choice in place of Simplify (actions/fields.ts `outputFields`).
 */
function outputOf(context: IExecuteSingleFunctions): Output {
	const chosen = chosenOutput(context);
	if (chosen) return chosen;
	if (context.getNodeParameter('simplify', false) !== true) return { mode: 'raw' };
	return context.getNode().typeVersion >= 2 ? { mode: 'simplified' } : { mode: 'flat' };
}

/** What an operation outputs for each record the service answered, as the node's parameters ask. */
export function recordOutput(context: IExecuteSingleFunctions, kind: RecordKind): (record: IDataObject) => IDataObject {
	return outputFor(outputOf(context), kind);
}

/** The postReceive step of an operation answering one record: {@link recordOutput}. */
export function outputStep(kind: RecordKind): PostReceiveAction {
	return async function (this: IExecuteSingleFunctions, items: INodeExecutionData[]) {
		const output = recordOutput(this, kind);
		return items.map((item) => ({ ...item, json: output(item.json) }));
	};
}
