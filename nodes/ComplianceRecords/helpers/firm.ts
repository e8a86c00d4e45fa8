import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	PreSendAction,
} from 'n8n-workflow';
import { itemError } from '../transport/errors';
import { serviceRequest } from '../transport/request';
import { executionPacer, sharedInExecution } from './execution';

interface StaffMember {
	id: string;
	firstName: string;
	lastName: string;
	isPartner: boolean;
	isManager: boolean;
}

export interface Firm {
	services: Array<{ id: string; name: string }>;
	businessUnits: Array<{ id: string; name: string; type: string }>;
	staff: StaffMember[];
}

export async function fetchFirm(
	context: ILoadOptionsFunctions | IExecuteSingleFunctions,
): Promise<Firm> {
	// An execution's lookup keeps its pace; a dropdown's has its own.
	const pacing = 'getItemIndex' in context ? { pacer: await executionPacer(context) } : undefined;
	const { body } = await serviceRequest.call(context, { method: 'GET', url: '/firm', pacing });
	return body.data as unknown as Firm;
}

const staffName = (member: StaffMember) => `${member.firstName} ${member.lastName}`;

/** Per execution and node: two nodes may use two firms. */
const firmOfThisRun = (context: IExecuteSingleFunctions) =>
	sharedInExecution(context, 'firm', async () => await fetchFirm(context));

interface Choice {
	id: string;
	name: string;
	description?: string;
}

export interface FirmReference {
	field: string;
	displayName: string;
	label: string;
	plural: string;
	choices: (firm: Firm) => Choice[];
}

const staffChoices = (members: StaffMember[]): Choice[] =>
	members.map((member) => ({ id: member.id, name: staffName(member) }));

export const PARTNER: FirmReference = {
	field: 'partnerId',
	displayName: 'Partner Name or ID',
	label: 'Partner',
	plural: 'partners',
	choices: (firm) => staffChoices(firm.staff.filter((member) => member.isPartner)),
};

export const MANAGER: FirmReference = {
	field: 'managerId',
	displayName: 'Manager Name or ID',
	label: 'Manager',
	plural: 'managers',
	choices: (firm) => staffChoices(firm.staff.filter((member) => member.isManager)),
};

/** `COST_CENTRE`: "Cost centre". */
const typeInWords = (value: string) =>
	value.charAt(0).toUpperCase() + value.slice(1).toLowerCase().replace(/_/g, ' ');

export const BUSINESS_UNIT: FirmReference = {
	field: 'businessUnitId',
	displayName: 'Business Unit Name or ID',
	label: 'Business Unit',
	plural: 'business units',
	choices: (firm) =>
		firm.businessUnits.map(({ id, name, type }) => ({ id, name, description: typeInWords(type) })),
};

export const SERVICE: FirmReference = {
	field: 'serviceIds',
	displayName: 'Service Names or IDs',
	label: 'Service',
	plural: 'services',
	choices: (firm) => firm.services,
};

const normalised = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
const words = (text: string) =>
	normalised(text)
		.split(/[^\p{L}\p{N}]+/u)
		.filter((word) => word !== '');
const namesOf = (choices: Choice[]) =>
	choices
		.map((choice) => choice.name)
		.sort((a, b) => a.localeCompare(b))
		.join(', ');

/** An ID; else the choice so named, in any case; else the one whose name has every word given. */
function resolveReference(
	value: string,
	reference: FirmReference,
	firm: Firm,
	error: (message: string, description: string) => Error,
): string {
	const choices = reference.choices(firm);
	const given = value.trim();
	if (choices.some((choice) => choice.id === given)) return given;
	const sameName = choices.filter((choice) => normalised(choice.name) === normalised(given));
	const givenWords = words(given);
	const matches =
		sameName.length > 0 || givenWords.length === 0
			? sameName
			: choices.filter((choice) => {
					const nameWords = words(choice.name);
					return givenWords.every((word) => nameWords.includes(word));
				});
	if (matches.length === 1) return matches[0].id;
	const article = /^[aeiou]/i.test(reference.label) ? 'an' : 'a';
	const field = `'${reference.displayName}'`;
	if (matches.length > 1) {
		throw error(
			`${field} "${given}" matches several of the firm's ${reference.plural}: ${namesOf(matches)}`,
			`Give the full name of one of them, or its ID.`,
		);
	}
	throw error(
		choices.length === 0
			? `${field} "${given}" not found: the firm has no ${reference.plural}`
			: `${field} "${given}" is not one of the firm's ${reference.plural}`,
		choices.length === 0
			? `Leave ${field} empty.`
			: `Give ${article} ${reference.label.toLowerCase()}'s name or ID. The firm's ${reference.plural}: ${namesOf(choices)}.`,
	);
}

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

/** A dropdown gives an ID; an expression may give names, sent as IDs or refused before sending. */
export function firmReferenceInBody(collection: string, reference: FirmReference): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const body = requestOptions.body as IDataObject;
		const value = body[reference.field];
		if (value === undefined || value === null) return requestOptions;
		const raw = (this.getNode().parameters[collection] as IDataObject | undefined)?.[
			reference.field
		];
		if (!isExpression(raw)) return requestOptions;
		const firm = await firmOfThisRun(this);
		const error = (message: string, description: string) =>
			itemError(this.getNode(), this.getItemIndex(), message, description);
		const resolve = (one: unknown) => resolveReference(String(one), reference, firm, error);
		body[reference.field] = Array.isArray(value) ? value.map(resolve) : resolve(value);
		return requestOptions;
	};
}
