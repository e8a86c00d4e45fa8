import type { IDisplayOptions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { RecordKind } from '../helpers/output';

const option = (name: string, value: string): INodePropertyOptions => ({ name, value });

/** The ID is not offered: it is always output. */
const clientListItemFields = [
	option('AML Determination Status', 'amlDeterminationStatus'),
	option('Entity Type', 'category'),
	option('Entity', 'entity'),
	option('Last AML Determination', 'lastAmlDetermination'),
	option('Last Modified At', 'lastModifiedAt'),
	option('Links', 'links'),
	option('Name', 'name'),
	option('Next Review Date', 'nextReviewDate'),
	option('Reference Number', 'referenceNumber'),
	option('Status', 'state'),
];

const byName = (options: INodePropertyOptions[]) =>
	[...options].sort((a, b) => a.name.localeCompare(b.name));

const RECORD_FIELDS: Record<RecordKind, INodePropertyOptions[]> = {
	clientListItem: clientListItemFields,
	client: byName([
		...clientListItemFields,
		option('Business Unit', 'businessUnit'),
		option('Created At', 'createdAt'),
		option('Manager', 'manager'),
		option('Partner', 'partner'),
		option('Services', 'services'),
		option('Updated At', 'updatedAt'),
	]),
	individual: [
		option('Client', 'client'),
		option('Created At', 'createdAt'),
		option('Date of Birth', 'birth'),
		option('Email', 'email'),
		option('First Name', 'firstName'),
		option('Last Name', 'lastName'),
		option('Links', 'links'),
		option('Middle Name', 'middleName'),
		option('Residential Address', 'residentialAddress'),
		option('Updated At', 'updatedAt'),
	],
	organisation: [
		option('Client', 'client'),
		option('Company Number', 'companyNumber'),
		option('Created At', 'createdAt'),
		option('Identifying Number', 'identifyingNumber'),
		option('Links', 'links'),
		option('Name', 'name'),
		option('Organisation Sub-Type', 'organisationSubType'),
		option('Organisation Type', 'organisationType'),
		option('Registered Address', 'registeredAddress'),
		option('Trading Address', 'tradingAddress'),
		option('Updated At', 'updatedAt'),
	],
	firm: [
		option('Business Units', 'businessUnits'),
		option('Created At', 'createdAt'),
		option('Links', 'links'),
		option('MLRO Staff ID', 'mlroStaffId'),
		option('Name', 'name'),
		option('Services', 'services'),
		option('Staff', 'staff'),
		option('Updated At', 'updatedAt'),
	],
};

/** n8n's UX guidelines give tool nodes this Output parameter. */
function outputParameter(displayOptions: IDisplayOptions): INodeProperties {
	return {
		displayName: 'Output',
		name: 'output',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Simplified',
				value: 'simple',
				description: 'At most 10 fields, the most used first, with names instead of references',
			},
			{ name: 'Raw', value: 'raw', description: 'Every field, as the service sends it' },
			{
				name: 'Selected Fields',
				value: 'fields',
				description: "The fields chosen in 'Fields', and the ID",
			},
		],
		default: 'simple',
		displayOptions,
	};
}

function selectedFieldsParameter(
	kind: RecordKind,
	displayOptions: IDisplayOptions,
): INodeProperties {
	return {
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: RECORD_FIELDS[kind],
		default: [],
		description: 'The fields to output; the ID is always included',
		displayOptions: { ...displayOptions, show: { ...displayOptions.show, output: ['fields'] } },
	};
}

/** Named and described as n8n's guidelines give it. */
export const simplify: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

/** Version 1 (0.1.0) outputs the service's records. */
const SIMPLIFY_VERSION = 2;

/** n8n sets '@tool' in the node type it builds of a `usableAsTool` node, as HTTP Request reads. */
const asTool = { '@version': [{ _cnd: { gte: SIMPLIFY_VERSION } }], '@tool': [true] };

export function outputFields(kind: RecordKind): INodeProperties[] {
	return [
		{
			...simplify,
			displayOptions: {
				show: { '@version': [{ _cnd: { gte: SIMPLIFY_VERSION } }], '@tool': [false] },
			},
		},
		outputParameter({ show: asTool }),
		selectedFieldsParameter(kind, { show: asTool }),
	];
}
