import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	PreSendAction,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { serviceRequest } from '../transport/request';
import { executionPacer, sharedInExecution } from './execution';

/**
 * The firm record (GET /firm, spec §2.6) as the client fields use it: the dropdowns list its
 * partners, managers, business units and services, and a value given by expression may name
 * one of them instead of giving its ID. Names are looked up in one firm record per execution.
 */

export interface StaffMember {
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

export async function fetchFirm(context: ILoadOptionsFunctions | IExecuteSingleFunctions): Promise<Firm> {
	// In an execution, the lookup keeps the execution's pace; a dropdown's has its own.
	const pacing = 'getItemIndex' in context ? { pacer: await executionPacer(context) } : undefined;
	const { body } = await serviceRequest.call(context, { method: 'GET', url: '/firm', pacing });
	return body.data as unknown as Firm;
}

const staffName = (member: StaffMember) => `${member.firstName} ${member.lastName}`;

/** The firm record of the current execution, read once for all its items (per node: two nodes may use two firms). */
const firmOfThisRun = (context: IExecuteSingleFunctions) => sharedInExecution(context, 'firm', async () => await fetchFirm(context));

interface Choice {
	id: string;
	name: string;
	/** Shown under the name in a dropdown. */
	description?: string;
}

/** A field that refers to something in the firm record, with the words its errors use. */
export interface FirmReference {
	/** The body field, e.g. `partnerId`. */
	field: string;
	/** What one is called, e.g. `Partner`. */
	label: string;
	/** What several are called in the firm, e.g. `partners`. */
	plural: string;
	choices: (firm: Firm) => Choice[];
}

const staffChoices = (members: StaffMember[]): Choice[] =>
	members.map((member) => ({ id: member.id, name: staffName(member) }));

export const PARTNER: FirmReference = {
	field: 'partnerId',
	label: 'Partner',
	plural: 'partners',
	choices: (firm) => staffChoices(firm.staff.filter((member) => member.isPartner)),
};

export const MANAGER: FirmReference = {
	field: 'managerId',
	label: 'Manager',
	plural: 'managers',
	choices: (firm) => staffChoices(firm.staff.filter((member) => member.isManager)),
};

/** A service value such as `COST_CENTRE` in words ("Cost centre"). */
const inWords = (value: string) => value.charAt(0).toUpperCase() + value.slice(1).toLowerCase().replace(/_/g, ' ');

export const BUSINESS_UNIT: FirmReference = {
	field: 'businessUnitId',
	label: 'Business Unit',
	plural: 'business units',
	choices: (firm) => firm.businessUnits.map(({ id, name, type }) => ({ id, name, description: inWords(type) })),
};

export const SERVICE: FirmReference = {
	field: 'serviceIds',
	label: 'Service',
	plural: 'services',
	choices: (firm) => firm.services,
};

const normalised = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
const words = (text: string) => normalised(text).split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
const namesOf = (choices: Choice[]) =>
	choices
		.map((choice) => choice.name)
		.sort((a, b) => a.localeCompare(b))
		.join(', ');

/**
 * The ID a value stands for: an ID of one of the choices as it is; else the choice whose name
 * it is (any case and spacing); else the one choice all of whose name's words include the
 * value's words ("Shah" for Priya Shah). None or several: an error listing the names to use.
 */
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
	if (matches.length > 1) {
		throw error(
			`${reference.label} "${given}" matches several of the firm's ${reference.plural}: ${namesOf(matches)}`,
			`Give the full name of one of them, or its ID.`,
		);
	}
	throw error(
		choices.length === 0
			? `${reference.label} "${given}" not found: the firm has no ${reference.plural}`
			: `${reference.label} "${given}" is not one of the firm's ${reference.plural}`,
		choices.length === 0
			? `Leave ${reference.label} empty.`
			: `Give ${article} ${reference.label.toLowerCase()}'s name or ID. The firm's ${reference.plural}: ${namesOf(choices)}.`,
	);
}

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

/**
 * A preSend step for a field that refers to the firm, in the collection `collection`. A value
 * chosen from the dropdown is an ID and is sent as it is; a value from an expression may be an
 * ID or a name (one, or a list for services), and is checked against the firm record and sent
 * as IDs, so a mistake is reported with the names to choose from before the client request.
 */
export function firmReferenceInBody(collection: string, reference: FirmReference): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const body = requestOptions.body as IDataObject;
		const value = body[reference.field];
		if (value === undefined || value === null) return requestOptions;
		const raw = (this.getNode().parameters[collection] as IDataObject | undefined)?.[reference.field];
		if (!isExpression(raw)) return requestOptions;
		const firm = await firmOfThisRun(this);
		const error = (message: string, description: string) =>
			new NodeOperationError(this.getNode(), `${message} [item ${this.getItemIndex()}]`, { itemIndex: this.getItemIndex(), description });
		const resolve = (one: unknown) => resolveReference(String(one), reference, firm, error);
		body[reference.field] = Array.isArray(value) ? value.map(resolve) : resolve(value);
		return requestOptions;
	};
}
