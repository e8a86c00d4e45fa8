import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeExecutionData,
	IPollFunctions,
	PostReceiveAction,
} from 'n8n-workflow';

import { isObject } from '../transport/response';

/**
 * What both nodes output for a record the service answered: flat records (names instead of
 * references, no links; a field the record has no value for is null) and n8n's Output choice
 * (Simplified, Raw, Selected Fields). A client list item has no partner, manager or business unit
 * (spec §2.2), so its flat record leaves those out rather than claim there is none.
 */

/** Which record an output is made from. */
export type RecordKind = 'client' | 'clientListItem' | 'individual' | 'organisation' | 'firm';

/**
 * How a node outputs each record:
 * - `simplified`: at most 10 flat fields, the most used first (Simplify from the action node's
 *   version 2; Output > Simplified);
 * - `flat`: every flat field (Simplify of the action node's version 1.1, kept for the workflows
 *   saved with it);
 * - `raw`: the record as the service sent it;
 * - `selected`: the service's fields chosen in 'Fields', and the ID always.
 */
export type Output = { mode: 'simplified' | 'flat' | 'raw' } | { mode: 'selected'; fields: string[] };

type Flat = IDataObject;

const textOrNull = (value: unknown): string | null =>
	typeof value === 'string' && value.trim() !== '' ? value : null;

const nameOf = (reference: unknown): string | null => (isObject(reference) ? textOrNull(reference.name) : null);

const idOf = (reference: unknown): string | null => (isObject(reference) ? textOrNull(reference.id) : null);

const fullName = (...parts: unknown[]): string | null =>
	textOrNull(parts.filter((part) => typeof part === 'string' && part.trim() !== '').join(' '));

/** An address on one line, its non-empty members in the order they are written on a letter. */
function addressLine(address: unknown): string | null {
	if (!isObject(address)) return null;
	const lines = ['line1', 'line2', 'city', 'county', 'postcode', 'country'].map((key) => address[key]);
	return textOrNull(lines.filter((line) => typeof line === 'string' && line.trim() !== '').join(', '));
}

/** `YYYY-MM-DD`, or as much of it as the service knows (it guarantees only the year). */
function dateOfBirth(birth: unknown): string | null {
	if (!isObject(birth) || typeof birth.year !== 'number') return null;
	const pad = (value: unknown) => String(value).padStart(2, '0');
	if (typeof birth.month !== 'number') return String(birth.year);
	if (typeof birth.day !== 'number') return `${birth.year}-${pad(birth.month)}`;
	return `${birth.year}-${pad(birth.month)}-${pad(birth.day)}`;
}

function clientHead(client: IDataObject): Flat {
	const determination = isObject(client.lastAmlDetermination) ? client.lastAmlDetermination : {};
	return {
		id: client.id,
		name: textOrNull(client.name),
		category: textOrNull(client.category),
		state: textOrNull(client.state),
		amlDeterminationStatus: textOrNull(client.amlDeterminationStatus),
		riskLevel: textOrNull(determination.riskLevel),
		nextReviewDate: textOrNull(client.nextReviewDate),
	};
}

function clientTail(client: IDataObject): Flat {
	return {
		referenceNumber: textOrNull(client.referenceNumber),
		lastModifiedAt: textOrNull(client.lastModifiedAt),
	};
}

/** Every flat field of a record, in the order version 1.1 of the action node outputs them. */
const flatteners: Record<RecordKind, (record: IDataObject) => Flat> = {
	client: (client) => ({
		...clientHead(client),
		partner: nameOf(client.partner),
		manager: nameOf(client.manager),
		businessUnit: nameOf(client.businessUnit),
		...clientTail(client),
	}),
	clientListItem: (client) => ({ ...clientHead(client), ...clientTail(client) }),
	individual: (individual) => ({
		id: individual.id,
		name: fullName(individual.firstName, individual.middleName, individual.lastName),
		email: textOrNull(individual.email),
		dateOfBirth: dateOfBirth(individual.birth),
		residentialAddress: addressLine(individual.residentialAddress),
		clientId: idOf(individual.client),
	}),
	organisation: (organisation) => ({
		id: organisation.id,
		name: textOrNull(organisation.name),
		organisationType: textOrNull(organisation.organisationType),
		companyNumber: textOrNull(organisation.companyNumber),
		identifyingNumber: textOrNull(organisation.identifyingNumber),
		registeredAddress: addressLine(organisation.registeredAddress),
		clientId: idOf(organisation.client),
	}),
	firm: (firm) => {
		const staff = (Array.isArray(firm.staff) ? firm.staff : []).filter(isObject);
		const names = (members: IDataObject[]) =>
			members.map((member) => fullName(member.firstName, member.lastName)).filter((name) => name !== null);
		const listed = (entries: unknown) =>
			(Array.isArray(entries) ? entries : []).map(nameOf).filter((name) => name !== null);
		const mlro = staff.find((member) => member.id !== undefined && member.id === firm.mlroStaffId);
		return {
			id: firm.id,
			name: textOrNull(firm.name),
			mlro: mlro ? fullName(mlro.firstName, mlro.lastName) : null,
			partners: names(staff.filter((member) => member.isPartner === true)),
			managers: names(staff.filter((member) => member.isManager === true)),
			reviewers: names(staff.filter((member) => member.isReviewer === true)),
			staff: names(staff),
			businessUnits: listed(firm.businessUnits),
			services: listed(firm.services),
		};
	},
};

/**
 * Simplify keeps at most 10 fields, the most used first (n8n's UX guidelines). A client has 12
 * flat fields; these ten are what a compliance team finds, screens and assigns a client by, and
 * its business unit and last modification stay in Raw and Selected Fields. A list item has 8 of
 * them. Individuals (6 fields), organisations (7) and the firm (9) keep every flat field.
 */
const MOST_USED_CLIENT_FIELDS = [
	'id',
	'name',
	'referenceNumber',
	'state',
	'amlDeterminationStatus',
	'riskLevel',
	'nextReviewDate',
	'partner',
	'manager',
	'category',
];

function simplified(kind: RecordKind, record: IDataObject): Flat {
	const flat = flatteners[kind](record);
	if (kind !== 'client' && kind !== 'clientListItem') return flat;
	return Object.fromEntries(MOST_USED_CLIENT_FIELDS.filter((field) => field in flat).map((field) => [field, flat[field]]));
}

/** The record as the service sent it, narrowed to the chosen fields and its ID, in the record's order. */
function selected(record: IDataObject, fields: string[]): IDataObject {
	const kept = new Set(['id', ...fields]);
	return Object.fromEntries(Object.entries(record).filter(([field]) => kept.has(field)));
}

/** What a node outputs for each record the service answered; anything not an object is left as it is. */
export function outputFor(output: Output, kind: RecordKind): (record: IDataObject) => IDataObject {
	return (record) => {
		if (!isObject(record)) return record;
		switch (output.mode) {
			case 'simplified':
				return simplified(kind, record);
			case 'flat':
				return flatteners[kind](record);
			case 'selected':
				return selected(record, output.fields);
			case 'raw':
				return record;
		}
	};
}

/** A list of field names from Fields: chosen in the list, or by expression as a list or separated by commas. */
function fieldNames(value: unknown): string[] {
	const names = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
	return names.filter((name): name is string => typeof name === 'string').map((name) => name.trim());
}

/** The Output parameter's choice where the node shows it; undefined where it does not. */
export function chosenOutput(context: IExecuteSingleFunctions | IPollFunctions): Output | undefined {
	switch (context.getNodeParameter('output', '')) {
		case 'simple':
			return { mode: 'simplified' };
		case 'raw':
			return { mode: 'raw' };
		case 'fields':
			return { mode: 'selected', fields: fieldNames(context.getNodeParameter('fields', [])) };
		default:
			return undefined;
	}
}

/**
 * What the action node outputs, by version: 1 the service's records (it has no Simplify); 1.1
 * Simplify's flat records with every flat field; 2 Simplify's at most 10 fields, and, run as an
 * AI agent's tool, the Output choice in place of Simplify (descriptions/outputFields.ts).
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
