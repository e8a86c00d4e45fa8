import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	addressField,
	byDisplayName,
	clientAssignmentFields,
	forOperation,
	optionalFields,
	personOptionalFields,
	textField,
} from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { writeRouting } from '../../helpers/writes';
import type { CreateWording } from '../../transport/errors';
import { clientCreates } from './writes';

export const clientWording: CreateWording = {
	conflict: {
		message: 'The reference number is already in use',
		advice:
			"Another client of the firm has this reference number. Use a different 'Reference Number'.",
	},
	mayHaveActed: {
		POST: "The service may have created the client before this happened, so the node did not send it again. A Retry of this execution from the executions list is safe: the node looks for the client first, and creates it only if there is none. Before you run the node any other way, check whether it exists: Client > Get Many with 'Modified Since' set to a time before this run lists it. Client > Create or Update with a 'Reference Number' is safe to run again: the service refuses a second client with the number, and the node updates the one that has it.",
		PATCH:
			'The service may have applied the update without confirming it, so the node did not send it again. Check the client with Client > Get before you run the node again.',
	},
	severalCreated: {
		message: 'Several clients could be the one an earlier try created, so the node created none',
		advice:
			"Check them with Client > Get. If one is this item's client, the item needs nothing more; if none is, run the workflow again for this item (a Retry of this execution would stop here again).",
	},
	overtaken: {
		message: 'The client changed while the node updated it',
		advice:
			'The service may have applied the update without confirming it, and another user or system changed the client since. The node did not send the update again, so as not to undo their change. Check the client with Client > Get, then run the node again for this item if its values should still apply.',
	},
};

export const routing = writeRouting({
	method: 'POST',
	path: '/clients',
	kind: 'client',
	wording: clientWording,
	creates: clientCreates,
});

const forEntity = (...entityTypes: string[]): IDisplayOptions => ({
	show: { entityType: entityTypes },
});

const personNames = (bodyPrefix: string): INodeProperties[] => [
	textField('First Name', 'firstName', `${bodyPrefix}firstName`, { required: true }),
	textField('Last Name', 'lastName', `${bodyPrefix}lastName`, { required: true }),
];

interface NewClientFieldOptions {
	statusDescription?: string;
	/** Said under Entity Type, when the entity is not always used. */
	entityHint?: string;
}

export const newClientFields = ({
	statusDescription,
	entityHint,
}: NewClientFieldOptions = {}): INodeProperties[] => [
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		required: true,
		default: 'PROSPECT',
		options: [
			{ name: 'Existing', value: 'EXISTING', description: 'Already a client of the firm' },
			{ name: 'Prospect', value: 'PROSPECT', description: 'Not yet engaged' },
		],
		routing: { send: { type: 'body', property: 'status' } },
		...(statusDescription && { description: statusDescription }),
	},
	{
		displayName: 'Entity Type',
		name: 'entityType',
		type: 'options',
		noDataExpression: true,
		default: 'individual',
		description: 'Who the client is; each type asks for its own fields',
		options: [
			{ name: 'Individual', value: 'individual', description: 'A person' },
			{
				name: 'Organisation',
				value: 'organisation',
				description: 'A company, charity, trust or other body entered by hand',
			},
			{
				name: 'Sole Trader',
				value: 'sole_trader',
				description: 'A person trading on their own account',
			},
			{
				name: 'UK Company From the Registry',
				value: 'import_uk_company',
				description: 'Imported from the national company registry by its company number',
			},
		],
		routing: { send: { type: 'body', property: 'entity.object' } },
		...(entityHint && { hint: entityHint }),
	},
	...updateDisplayOptions(forEntity('individual'), personNames('entity.')),
	...updateDisplayOptions(forEntity('sole_trader'), personNames('entity.individual.')),
	textField('Company Number', 'companyNumber', 'entity.companyNumber', {
		required: true,
		placeholder: 'e.g. 01234567',
		description:
			"The company's number at the national company registry; the service fills in the rest",
		displayOptions: forEntity('import_uk_company'),
	}),
	textField('Organisation Name', 'organisationName', 'entity.name', {
		required: true,
		displayOptions: forEntity('organisation'),
	}),
	{
		displayName: 'Organisation Type',
		name: 'organisationType',
		type: 'options',
		required: true,
		default: 'COMPANY',
		options: [
			{ name: 'Company', value: 'COMPANY' },
			{ name: 'Non-Profit', value: 'NON_PROFIT' },
			{ name: 'Other', value: 'OTHER' },
			{ name: 'Trust', value: 'TRUST' },
		],
		routing: { send: { type: 'body', property: 'entity.type' } },
		displayOptions: forEntity('organisation'),
	},
	optionalFields('Individual Fields', 'individualFields', personOptionalFields('entity.'), {
		displayOptions: forEntity('individual'),
	}),
	optionalFields(
		'Sole Trader Fields',
		'soleTraderFields',
		byDisplayName([
			textField('Trading Name', 'tradingName', 'entity.tradingName'),
			...personOptionalFields('entity.individual.'),
		]),
		{ displayOptions: forEntity('sole_trader') },
	),
	optionalFields(
		'Company Fields',
		'companyFields',
		[addressField('Trading Address', 'tradingAddress', 'entity.tradingAddress')],
		{ displayOptions: forEntity('import_uk_company') },
	),
	optionalFields(
		'Organisation Fields',
		'organisationFields',
		[
			textField('Identifying Number', 'identifyingNumber', 'entity.identifyingNumber', {
				description:
					"The organisation's own identifying number (it is not in the company registry)",
			}),
			addressField('Registered Address', 'registeredAddress', 'entity.registeredAddress'),
			textField('Sub-Type', 'subType', 'entity.subType', { placeholder: 'e.g. Charitable trust' }),
			addressField('Trading Address', 'tradingAddress', 'entity.tradingAddress'),
		],
		{ displayOptions: forEntity('organisation') },
	),
];

export const additionalClientFields = (leftOut: string[] = []): INodeProperties =>
	optionalFields(
		'Additional Fields',
		'additionalFields',
		clientAssignmentFields('additionalFields').filter((field) => !leftOut.includes(field.name)),
	);

export const description = forOperation('client', 'create', [
	...newClientFields(),
	additionalClientFields(),
	...outputFields('client'),
]);
