import type { INodeProperties, INodePropertyOptions, PreSendAction } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	BUSINESS_UNIT,
	type FirmReference,
	firmReferenceInBody,
	MANAGER,
	PARTNER,
	SERVICE,
} from '../helpers/firm';
import {
	birthInBody,
	blankFieldsLeftOut,
	type ClearableFields,
	clearedFieldsInBody,
	dateInBody,
	emailInBody,
	idListInBody,
} from '../helpers/preSend';
import { PICKER_VERSION } from '../helpers/records';

export function forOperation(
	resource: string,
	operation: string,
	properties: INodeProperties[],
): INodeProperties[] {
	return updateDisplayOptions(
		{ show: { resource: [resource], operation: [operation] } },
		properties,
	);
}

export function operationPicker(
	resource: string,
	defaultOperation: string,
	options: INodePropertyOptions[],
): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultOperation,
	};
}

/** n8n's editor lists options in the order given. */
export function byDisplayName(properties: INodeProperties[]): INodeProperties[] {
	return [...properties].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

const toBody = (bodyPath: string) => ({ send: { type: 'body' as const, property: bodyPath } });

export function textField(
	displayName: string,
	name: string,
	bodyPath: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return { displayName, name, type: 'string', default: '', routing: toBody(bodyPath), ...extra };
}

const addressLines: INodeProperties[] = [
	{ displayName: 'City', name: 'city', type: 'string', default: '' },
	{ displayName: 'Country', name: 'country', type: 'string', default: '' },
	{ displayName: 'County', name: 'county', type: 'string', default: '' },
	{ displayName: 'Line 1', name: 'line1', type: 'string', default: '' },
	{ displayName: 'Line 2', name: 'line2', type: 'string', default: '' },
	{ displayName: 'Postcode', name: 'postcode', type: 'string', default: '' },
];

export function addressField(displayName: string, name: string, bodyPath: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'collection',
		placeholder: 'Add Address Line',
		default: {},
		options: addressLines,
		routing: toBody(bodyPath),
	};
}

function emailField(bodyPath: string): INodeProperties {
	return textField('Email', 'email', bodyPath, {
		placeholder: 'e.g. nathan@example.com',
		routing: { send: { ...toBody(bodyPath).send, preSend: [emailInBody(bodyPath, 'Email')] } },
	});
}

/** Text in version 1, a date picker from 2: one name, so a saved value stays. */
function dateField(
	displayName: string,
	name: string,
	bodyPath: string,
	preSend: PreSendAction,
	extra: Pick<INodeProperties, 'description' | 'placeholder'>,
): INodeProperties[] {
	const field = {
		displayName,
		name,
		default: '',
		routing: { send: { ...toBody(bodyPath).send, preSend: [preSend] } },
		...extra,
	};
	return [
		{
			...field,
			type: 'string',
			displayOptions: { show: { '@version': [{ _cnd: { lt: PICKER_VERSION } }] } },
		},
		{
			...field,
			type: 'dateTime',
			displayOptions: { show: { '@version': [{ _cnd: { gte: PICKER_VERSION } }] } },
		},
	];
}

const birthFields = (bodyPath: string) =>
	dateField('Date of Birth', 'birth', bodyPath, birthInBody(bodyPath, 'Date of Birth'), {
		placeholder: 'e.g. 1984-07-21',
		description: 'The service needs day, month and year together',
	});

const nextReviewDateFields = dateField(
	'Next Review Date',
	'nextReviewDate',
	'nextReviewDate',
	dateInBody('nextReviewDate', 'Next Review Date'),
	{
		placeholder: 'e.g. 2027-03-31',
		description:
			'When the client is next due for review. A date and time counts as its date in its own time zone.',
	},
);

export function personOptionalFields(bodyPrefix: string): INodeProperties[] {
	return byDisplayName([
		addressField('Residential Address', 'residentialAddress', `${bodyPrefix}residentialAddress`),
		...birthFields(`${bodyPrefix}birth`),
		emailField(`${bodyPrefix}email`),
		textField('Middle Name', 'middleName', `${bodyPrefix}middleName`),
	]);
}

function firmPicker(
	collection: string,
	reference: FirmReference,
	loadOptionsMethod: string,
	purpose: string,
): INodeProperties {
	return {
		displayName: reference.displayName,
		name: reference.field,
		type: 'options',
		typeOptions: { loadOptionsMethod },
		default: '',
		description: `${purpose}; by expression, a name or an ID. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
		routing: {
			send: {
				...toBody(reference.field).send,
				preSend: [firmReferenceInBody(collection, reference)],
			},
		},
	};
}

export function clientAssignmentFields(collection: string): INodeProperties[] {
	return [
		firmPicker(
			collection,
			BUSINESS_UNIT,
			'getBusinessUnits',
			'The business unit handling the client',
		),
		firmPicker(collection, MANAGER, 'getManagers', "The client's manager"),
		...nextReviewDateFields,
		firmPicker(collection, PARTNER, 'getPartners', 'The partner responsible for the client'),
		textField('Reference Number', 'referenceNumber', 'referenceNumber', {
			description: "The firm's own reference for the client; unique within the firm",
		}),
		{
			displayName: SERVICE.displayName,
			name: SERVICE.field,
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getServices' },
			default: [],
			description:
				'The services the firm provides to the client; by expression, names or IDs, as a list or separated by commas. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			routing: {
				send: {
					...toBody(SERVICE.field).send,
					preSend: [idListInBody(SERVICE.field), firmReferenceInBody(collection, SERVICE)],
				},
			},
		},
	];
}

function bodyPathsOf(fields: INodeProperties[]): string[] {
	return fields.flatMap((field) => {
		const property = field.routing?.send?.property;
		return typeof property === 'string' ? [property] : [];
	});
}

export function optionalFields(
	displayName: string,
	name: string,
	options: INodeProperties[],
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName,
		name,
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options,
		routing: { send: { preSend: [blankFieldsLeftOut(bodyPathsOf(options), { orEmpty: true })] } },
		...extra,
	};
}

export function updateFieldsCollection(
	fields: INodeProperties[],
	clearable: ClearableFields,
): INodeProperties {
	return {
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: byDisplayName([
			...fields,
			{
				displayName: 'Fields to Clear',
				name: 'clearFields',
				type: 'multiOptions',
				options: clearable,
				default: [],
				description: 'Fields to empty in the service. A field cannot be both set and emptied.',
			},
		]),
		routing: {
			send: {
				preSend: [
					blankFieldsLeftOut(bodyPathsOf(fields)),
					clearedFieldsInBody('updateFields', clearable),
				],
			},
		},
	};
}

export const pagingFields: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];
