import type { INodeParameters, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

/** The parameters n8n keeps (and the editor shows) for these values of a node, defaults filled in. */
export const parametersShown = (
	description: INodeTypeDescription,
	values: INodeParameters,
	typeVersion: number,
): INodeParameters =>
	NodeHelpers.getNodeParameters(
		description.properties,
		values,
		true,
		false,
		{ typeVersion },
		description,
	) ?? {};
