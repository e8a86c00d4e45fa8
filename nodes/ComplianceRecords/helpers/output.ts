import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';

import { isObject } from '../transport/answers';

export type RecordKind = 'client' | 'clientListItem' | 'individual' | 'organisation' | 'firm';

export type OutputChoice =
	| { mode: 'simple' }
	| { mode: 'raw' }
	| { mode: 'fields'; fields: string[] };

const textOrNull = (value: unknown): string | null =>
	typeof value === 'string' && value.trim() !== '' ? value : null;

const nameOf = (reference: unknown): string | null =>
	isObject(reference) ? textOrNull(reference.name) : null;

const idOf = (reference: unknown): string | null =>
	isObject(reference) ? textOrNull(reference.id) : null;

const fullName = (...parts: unknown[]): string | null =>
	textOrNull(parts.filter((part) => typeof part === 'string' && part.trim() !== '').join(' '));

function addressLine(address: unknown): string | null {
	if (!isObject(address)) return null;
	const lines = ['line1', 'line2', 'city', 'county', 'postcode', 'country'].map(
		(key) => address[key],
	);
	return textOrNull(
		lines.filter((line) => typeof line === 'string' && line.trim() !== '').join(', '),
	);
}

/** As much of `YYYY-MM-DD` as the service knows: it guarantees only the year. */
function dateOfBirth(birth: unknown): string | null {
	if (!isObject(birth) || typeof birth.year !== 'number') return null;
	const pad = (value: unknown) => String(value).padStart(2, '0');
	if (typeof birth.month !== 'number') return String(birth.year);
	if (typeof birth.day !== 'number') return `${birth.year}-${pad(birth.month)}`;
	return `${birth.year}-${pad(birth.month)}-${pad(birth.day)}`;
}

/** A list item has no partner or manager: absent, as null would say "none". */
function flatClient(client: IDataObject, listItem: boolean): IDataObject {
	const determination = isObject(client.lastAmlDetermination) ? client.lastAmlDetermination : {};
	return {
		id: client.id,
		name: textOrNull(client.name),
		referenceNumber: textOrNull(client.referenceNumber),
		status: textOrNull(client.state),
		amlDeterminationStatus: textOrNull(client.amlDeterminationStatus),
		riskLevel: textOrNull(determination.riskLevel),
		nextReviewDate: textOrNull(client.nextReviewDate),
		...(!listItem && { partner: nameOf(client.partner), manager: nameOf(client.manager) }),
		lastModifiedAt: textOrNull(client.lastModifiedAt),
	};
}

/** At most 10 fields (n8n's UX guidelines): names instead of references, null for no value. */
const flatteners: Record<RecordKind, (record: IDataObject) => IDataObject> = {
	client: (client) => flatClient(client, false),
	clientListItem: (client) => flatClient(client, true),
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
			members
				.map((member) => fullName(member.firstName, member.lastName))
				.filter((name) => name !== null);
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

function recordWithFields(record: IDataObject, fields: string[]): IDataObject {
	const kept = new Set(['id', ...fields]);
	return Object.fromEntries(Object.entries(record).filter(([field]) => kept.has(field)));
}

export function shaperFor(
	choice: OutputChoice,
	kind: RecordKind,
): (record: IDataObject) => IDataObject {
	return (record) => {
		if (!isObject(record)) return record;
		switch (choice.mode) {
			case 'simple':
				return flatteners[kind](record);
			case 'fields':
				return recordWithFields(record, choice.fields);
			case 'raw':
				return record;
		}
	};
}

/** Chosen in the list, or by expression as a list or separated by commas. */
function fieldNames(value: unknown): string[] {
	const names = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
	return names
		.filter((name): name is string => typeof name === 'string')
		.map((name) => name.trim());
}

/** Output where the node runs as a tool, else Simplify; version 1 has neither. */
function outputChoiceOf(context: IExecuteSingleFunctions): OutputChoice {
	switch (context.getNodeParameter('output', '')) {
		case 'simple':
			return { mode: 'simple' };
		case 'raw':
			return { mode: 'raw' };
		case 'fields':
			return { mode: 'fields', fields: fieldNames(context.getNodeParameter('fields', [])) };
		default:
			return context.getNodeParameter('simplify', false) === true
				? { mode: 'simple' }
				: { mode: 'raw' };
	}
}

export function shaperOf(
	context: IExecuteSingleFunctions,
	kind: RecordKind,
): (record: IDataObject) => IDataObject {
	return shaperFor(outputChoiceOf(context), kind);
}
