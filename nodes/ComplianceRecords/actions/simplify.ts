import type { IDataObject, IExecuteSingleFunctions, INodeExecutionData, PostReceiveAction } from 'n8n-workflow';

/**
 * Simplify: the flat records the operations output when it is on, with what people and AI
 * agents ask about, names instead of references, and no links. A field the record has no value
 * for is null. A client list item has no partner, manager or business unit (spec §2.2), so its
 * flat record leaves those out rather than claim there is none.
 */

/** Which flat record an operation outputs. */
export type RecordKind = 'client' | 'clientListItem' | 'individual' | 'organisation' | 'firm';

type Flat = IDataObject;

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

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

const simplifiers: Record<RecordKind, (record: IDataObject) => Flat> = {
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

/** The flat record of a record the service answered; anything not an object is left as it is. */
export function simplifyRecord(kind: RecordKind, record: unknown): unknown {
	return isObject(record) ? simplifiers[kind](record) : record;
}

/** Whether the node's Simplify is on (always off in version 1, which has no Simplify). */
function isSimplifyOn(context: IExecuteSingleFunctions): boolean {
	return context.getNodeParameter('simplify', false) === true;
}

/** What an operation outputs for each record the service answered, as the node's parameters ask. */
export function recordOutput(context: IExecuteSingleFunctions, kind: RecordKind): (record: IDataObject) => IDataObject {
	return isSimplifyOn(context) ? (record) => simplifyRecord(kind, record) as IDataObject : (record) => record;
}

/** The postReceive step of an operation answering one record: {@link recordOutput}. */
export function outputStep(kind: RecordKind): PostReceiveAction {
	return async function (this: IExecuteSingleFunctions, items: INodeExecutionData[]) {
		const output = recordOutput(this, kind);
		return items.map((item) => ({ ...item, json: output(item.json) }));
	};
}
