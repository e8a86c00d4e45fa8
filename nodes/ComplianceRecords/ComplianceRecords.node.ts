import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { authenticationProperty, serviceCredentials } from './authentication';
import { subtitleOf } from './descriptions/subtitle';
import { requestDefaults } from './helpers/routing';
import { searchClients, searchIndividuals } from './methods/listSearch';
import { getBusinessUnits, getManagers, getPartners, getServices } from './methods/loadOptions';
import { clientDescription } from './resources/client/index';
import { firmDescription } from './resources/firm/index';
import { individualDescription } from './resources/individual/index';
import { organisationDescription } from './resources/organisation/index';

const properties: INodeProperties[] = [
	authenticationProperty,
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Client', value: 'client' },
			{ name: 'Firm', value: 'firm' },
			{ name: 'Individual', value: 'individual' },
			{ name: 'Organisation', value: 'organisation' },
		],
		default: 'client',
	},
	...clientDescription,
	...individualDescription,
	...organisationDescription,
	...firmDescription,
];

export class ComplianceRecords implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Compliance Records',
		name: 'complianceRecords',
		icon: {
			light: 'file:../../icons/complianceRecords.svg',
			dark: 'file:../../icons/complianceRecords.dark.svg',
		},
		group: ['transform'],
		// 2.1: Get Many's 'Review Due'; 2: pickers, Simplify, Output as a tool; 1: 0.1.0's.
		version: [1, 2, 2.1],
		subtitle: subtitleOf(properties, ['operation', 'resource']),
		description:
			'Create, read and update AML client records in the Client Compliance Records Service',
		defaults: { name: 'Compliance Records' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: serviceCredentials,
		requestDefaults,
		properties,
	};

	methods = {
		loadOptions: { getBusinessUnits, getManagers, getPartners, getServices },
		listSearch: { searchClients, searchIndividuals },
	};
}
