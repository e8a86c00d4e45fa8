import type { INode, INodeParameters, INodeType } from 'n8n-workflow';

import { ComplianceRecords } from '../../../../nodes/ComplianceRecords/ComplianceRecords.node';
import { ComplianceRecordsTrigger } from '../../../../nodes/ComplianceRecords/ComplianceRecordsTrigger.node';
import { TestNodeTypes, workflowWith } from '../../../helpers';
import { nodeTypeName } from '../../../helpers/engine';

/** The subtitle the canvas shows under a node with these parameters, as n8n's editor evaluates it. */
function subtitleShown(nodeType: INodeType, parameters: INodeParameters): unknown {
	const node: INode = {
		id: 'node',
		name: 'Node',
		type: nodeTypeName(nodeType),
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const workflow = workflowWith(node, new TestNodeTypes([nodeType]));
	return workflow.expression.getSimpleParameterValue(
		node,
		nodeType.description.subtitle,
		'internal',
		{},
	);
}

describe('the canvas subtitle: display names, never stored values', () => {
	it.each([
		[{ resource: 'client', operation: 'getAll' }, 'Get Many: Client'],
		[{ resource: 'client', operation: 'upsert' }, 'Create or Update: Client'],
		[{ resource: 'individual', operation: 'update' }, 'Update: Individual'],
		[{ resource: 'firm', operation: 'get' }, 'Get: Firm'],
	])('Compliance Records %j: "%s"', (parameters, expected) => {
		expect(subtitleShown(new ComplianceRecords(), parameters)).toBe(expected);
	});

	it.each([
		[{ event: 'clientModified' }, 'Client Created or Modified'],
		[{ event: 'amlDeterminationCompleted' }, 'AML Determination Completed'],
		[{ event: 'reviewDue' }, 'Review Due'],
	])('Compliance Records Trigger %j: "%s"', (parameters, expected) => {
		expect(subtitleShown(new ComplianceRecordsTrigger(), parameters)).toBe(expected);
	});
});
