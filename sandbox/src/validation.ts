/**
 * Validation of request bodies (spec §4.1, §4.3): required fields, types, formats, the four
 * entity variants of createClient, ids that must exist in the caller's firm. Every failure is
 * a 400 whose message names the field (also given as the error's `field`). Unknown fields, at any depth, are refused by name.
 */
import { badRequest, invalidField } from './http';
import { findRegisteredCompany, COMPANY_REGISTRY } from './registry';
import type {
	Address,
	Birth,
	ClientUpdate,
	FirmData,
	IndividualUpdate,
	NewClient,
	NewEntity,
	PersonFields,
} from './store';
import { CREATABLE_STATES, ORGANISATION_TYPES } from './store';

type Json = Record<string, unknown>;
type Parse<T> = (value: unknown, field: string) => T;

const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'postcode', 'county', 'country'] as const;
const PERSON_FIELDS = [
	'firstName',
	'middleName',
	'lastName',
	'email',
	'residentialAddress',
	'birth',
];
const ENTITY_FIELDS: Record<string, string[]> = {
	individual: ['object', ...PERSON_FIELDS],
	sole_trader: ['object', 'tradingName', 'individual'],
	import_uk_company: ['object', 'companyNumber', 'tradingAddress'],
	organisation: [
		'object',
		'name',
		'type',
		'subType',
		'identifyingNumber',
		'registeredAddress',
		'tradingAddress',
	],
};
const CREATE_FIELDS = [
	'status',
	'entity',
	'partnerId',
	'managerId',
	'businessUnitId',
	'serviceIds',
	'referenceNumber',
	'nextReviewDate',
];
const UPDATE_FIELDS = [
	'status',
	'serviceIds',
	'partnerId',
	'managerId',
	'businessUnitId',
	'referenceNumber',
	'nextReviewDate',
];

const fieldName = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** A JSON object whose keys are all in `allowed`. */
function object(value: unknown, path: string, allowed: readonly string[]): Json {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		throw path
			? invalidField(path, `${path} must be a JSON object`)
			: badRequest('The request body must be a JSON object');
	}
	for (const key of Object.keys(value)) {
		if (!allowed.includes(key)) {
			const field = fieldName(path, key);
			throw invalidField(
				field,
				`Unknown field ${field}: ${path || 'the body'} accepts ${allowed.join(', ')}`,
			);
		}
	}
	return value as Json;
}

function required<T>(body: Json, path: string, key: string, parse: Parse<T>): T {
	const field = fieldName(path, key);
	if (body[key] === undefined) throw invalidField(field, `${field} is required`);
	if (body[key] === null) throw invalidField(field, `${field} is required and must not be null`);
	return parse(body[key], field);
}

/** An optional field of a create request: absent is fine, null is not (omit it instead). */
function optional<T>(body: Json, path: string, key: string, parse: Parse<T>): T | undefined {
	const field = fieldName(path, key);
	if (body[key] === undefined) return undefined;
	if (body[key] === null)
		throw invalidField(field, `${field} must not be null: omit it to leave it unset`);
	return parse(body[key], field);
}

/** A field of an update request: absent leaves it alone, null clears it (if nullable). */
function updated<T>(
	body: Json,
	key: string,
	parse: Parse<T>,
	nullable: boolean,
): T | null | undefined {
	if (!(key in body)) return undefined;
	if (body[key] === null) {
		if (nullable) return null;
		throw invalidField(
			key,
			`${key} cannot be null: send a value, or leave it out to keep the current one`,
		);
	}
	if (body[key] === undefined) return undefined;
	return parse(body[key], key);
}

const text: Parse<string> = (value, field) => {
	if (typeof value !== 'string') throw invalidField(field, `${field} must be a string`);
	if (value.trim() === '') throw invalidField(field, `${field} must not be empty`);
	return value;
};

const email: Parse<string> = (value, field) => {
	const address = text(value, field);
	if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) {
		throw invalidField(field, `${field} must be an email address such as name@example.com`);
	}
	return address;
};

const oneOf =
	<T extends string>(values: readonly T[]): Parse<T> =>
	(value, field) => {
		if (!values.includes(value as T))
			throw invalidField(field, `${field} must be one of ${values.join(', ')}`);
		return value as T;
	};

const isRealDate = (year: number, month: number, day: number) => {
	const date = new Date(Date.UTC(year, month - 1, day));
	return (
		date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
	);
};

const isoDate: Parse<string> = (value, field) => {
	const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
	if (!match) throw invalidField(field, `${field} must be a date in the form YYYY-MM-DD`);
	if (!isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
		throw invalidField(field, `${field} is not a real date: ${String(value)}`);
	}
	return value as string;
};

const integer: Parse<number> = (value, field) => {
	if (typeof value !== 'number' || !Number.isInteger(value))
		throw invalidField(field, `${field} must be a whole number`);
	return value;
};

const stringList: Parse<string[]> = (value, field) => {
	if (!Array.isArray(value)) throw invalidField(field, `${field} must be an array of strings`);
	value.forEach((item, index) => text(item, `${field}[${index}]`));
	if (new Set(value).size !== value.length)
		throw invalidField(field, `${field} lists the same id twice`);
	return [...(value as string[])];
};

/** Every member optional and nullable (spec §2.1). */
const address: Parse<Address> = (value, field) => {
	const body = object(value, field, ADDRESS_FIELDS);
	const result: Address = {};
	for (const key of ADDRESS_FIELDS) {
		const member = body[key];
		if (member === undefined) continue;
		if (member !== null && typeof member !== 'string')
			throw invalidField(`${field}.${key}`, `${field}.${key} must be a string or null`);
		result[key] = member;
	}
	return result;
};

/** In requests, day, month and year all together, forming a real date. */
const birth: Parse<Birth> = (value, field) => {
	const body = object(value, field, ['day', 'month', 'year']);
	for (const key of ['day', 'month', 'year']) {
		if (body[key] === undefined || body[key] === null) {
			throw invalidField(
				`${field}.${key}`,
				`${field}.${key} is required: ${field} needs day, month and year together`,
			);
		}
	}
	const day = integer(body.day, `${field}.day`);
	const month = integer(body.month, `${field}.month`);
	const year = integer(body.year, `${field}.year`);
	if (!isRealDate(year, month, day)) {
		throw invalidField(
			field,
			`${field} is not a real date: day ${day}, month ${month}, year ${year}`,
		);
	}
	return { day, month, year };
};

function person(body: Json, path: string): PersonFields {
	return {
		firstName: required(body, path, 'firstName', text),
		middleName: optional(body, path, 'middleName', text),
		lastName: required(body, path, 'lastName', text),
		email: optional(body, path, 'email', email),
		residentialAddress: optional(body, path, 'residentialAddress', address),
		birth: optional(body, path, 'birth', birth),
	};
}

function entity(value: unknown): NewEntity {
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw invalidField('entity', 'entity must be a JSON object');
	const kind = required(value as Json, 'entity', 'object', oneOf(Object.keys(ENTITY_FIELDS)));
	const body = object(value, 'entity', ENTITY_FIELDS[kind]);
	switch (kind) {
		case 'individual':
			return { object: 'individual', ...person(body, 'entity') };
		case 'sole_trader':
			return {
				object: 'sole_trader',
				tradingName: optional(body, 'entity', 'tradingName', text),
				individual: person(
					object(
						required(body, 'entity', 'individual', (v) => v),
						'entity.individual',
						PERSON_FIELDS,
					),
					'entity.individual',
				),
			};
		case 'import_uk_company': {
			const companyNumber = required(body, 'entity', 'companyNumber', text);
			const company = findRegisteredCompany(companyNumber);
			if (!company) {
				throw invalidField(
					'entity.companyNumber',
					`entity.companyNumber '${companyNumber}' was not found in the company registry ` +
						`(the sandbox's registry holds ${COMPANY_REGISTRY.map((known) => known.companyNumber).join(', ')})`,
				);
			}
			return {
				object: 'organisation',
				name: company.name,
				organisationType: 'COMPANY',
				organisationSubType: company.subType,
				companyNumber: company.companyNumber,
				registeredAddress: { ...company.registeredAddress },
				tradingAddress: optional(body, 'entity', 'tradingAddress', address),
			};
		}
		default:
			return {
				object: 'organisation',
				name: required(body, 'entity', 'name', text),
				organisationType: required(body, 'entity', 'type', oneOf(ORGANISATION_TYPES)),
				organisationSubType: optional(body, 'entity', 'subType', text),
				identifyingNumber: optional(body, 'entity', 'identifyingNumber', text),
				registeredAddress: optional(body, 'entity', 'registeredAddress', address),
				tradingAddress: optional(body, 'entity', 'tradingAddress', address),
			};
	}
}

/** Ids a client points at must exist in the caller's firm, with the right role. */
function checkFirmReferences(
	firm: FirmData,
	fields: {
		partnerId?: string | null;
		managerId?: string | null;
		businessUnitId?: string | null;
		serviceIds?: string[];
	},
): void {
	const { partnerId, managerId, businessUnitId, serviceIds } = fields;
	if (typeof partnerId === 'string' && !firm.isPartner(partnerId)) {
		throw invalidField(
			'partnerId',
			`partnerId '${partnerId}' is not a partner of this firm: use the id of a staff member with isPartner true (GET /firm)`,
		);
	}
	if (typeof managerId === 'string' && !firm.isManager(managerId)) {
		throw invalidField(
			'managerId',
			`managerId '${managerId}' is not a manager of this firm: use the id of a staff member with isManager true (GET /firm)`,
		);
	}
	if (typeof businessUnitId === 'string' && !firm.hasBusinessUnit(businessUnitId)) {
		throw invalidField(
			'businessUnitId',
			`businessUnitId '${businessUnitId}' is not a business unit of this firm (GET /firm lists them)`,
		);
	}
	if (Array.isArray(serviceIds)) {
		serviceIds.forEach((id, index) => {
			if (!firm.hasService(id))
				throw invalidField(
					`serviceIds[${index}]`,
					`serviceIds[${index}] '${id}' is not a service of this firm (GET /firm lists them)`,
				);
		});
	}
}

export function parseCreateClient(value: unknown, firm: FirmData): NewClient {
	const body = object(value, '', CREATE_FIELDS);
	const input: NewClient = {
		state: required(body, '', 'status', oneOf(CREATABLE_STATES)),
		entity: entity(required(body, '', 'entity', (v) => v)),
		partnerId: optional(body, '', 'partnerId', text),
		managerId: optional(body, '', 'managerId', text),
		businessUnitId: optional(body, '', 'businessUnitId', text),
		serviceIds: optional(body, '', 'serviceIds', stringList) ?? [],
		referenceNumber: optional(body, '', 'referenceNumber', text),
		nextReviewDate: optional(body, '', 'nextReviewDate', isoDate),
	};
	checkFirmReferences(firm, input);
	return input;
}

export function parseClientUpdate(value: unknown, firm: FirmData): ClientUpdate {
	const body = object(value, '', UPDATE_FIELDS);
	const update: ClientUpdate = {
		state: updated(body, 'status', oneOf(CREATABLE_STATES), false) ?? undefined,
		serviceIds: updated(body, 'serviceIds', stringList, false) ?? undefined,
		partnerId: updated(body, 'partnerId', text, true),
		managerId: updated(body, 'managerId', text, true),
		businessUnitId: updated(body, 'businessUnitId', text, true),
		referenceNumber: updated(body, 'referenceNumber', text, true),
		nextReviewDate: updated(body, 'nextReviewDate', isoDate, true),
	};
	checkFirmReferences(firm, update);
	return withoutAbsent(update);
}

export function parseIndividualUpdate(value: unknown): IndividualUpdate {
	const body = object(value, '', PERSON_FIELDS);
	return withoutAbsent({
		firstName: updated(body, 'firstName', text, false) ?? undefined,
		lastName: updated(body, 'lastName', text, false) ?? undefined,
		middleName: updated(body, 'middleName', text, true),
		email: updated(body, 'email', email, true),
		residentialAddress: updated(body, 'residentialAddress', address, true),
		birth: updated(body, 'birth', birth, true),
	});
}

/** Drops the keys a request did not send, so the update changes only the fields it names. */
function withoutAbsent<T extends object>(update: T): T {
	return Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined)) as T;
}
