import type { IDataObject } from 'n8n-workflow';

import type { ServiceClient } from './serviceApi';

/*
 * What Simplify outputs, as the README's Output section lists it: the keys of each kind of record,
 * in order, and a client's values as the service holds them. The one place tests write them.
 */

/** A full client's keys (Get, Create, Update, Create or Update, the trigger with 'Fetch Full Client'). */
const CLIENT_KEYS = [
	'id',
	'name',
	'referenceNumber',
	'status',
	'amlDeterminationStatus',
	'riskLevel',
	'nextReviewDate',
	'partner',
	'manager',
	'lastModifiedAt',
];

export const SIMPLIFIED_KEYS = {
	client: CLIENT_KEYS,
	/** Get Many and the trigger: the service's list items carry no partner or manager. */
	clientListItem: CLIENT_KEYS.filter((key) => key !== 'partner' && key !== 'manager'),
	individual: ['id', 'name', 'email', 'dateOfBirth', 'residentialAddress', 'clientId'],
	organisation: [
		'id',
		'name',
		'organisationType',
		'companyNumber',
		'identifyingNumber',
		'registeredAddress',
		'clientId',
	],
	firm: [
		'id',
		'name',
		'mlro',
		'partners',
		'managers',
		'reviewers',
		'staff',
		'businessUnits',
		'services',
	],
};

/** Simplify's client for a client as the service answers it: in full, or as a list item. */
export function simplifiedClient(client: ServiceClient, listItem = false): IDataObject {
	const values: IDataObject = {
		id: client.id,
		name: client.name,
		referenceNumber: client.referenceNumber ?? null,
		status: client.state,
		amlDeterminationStatus: client.amlDeterminationStatus,
		riskLevel: client.lastAmlDetermination?.riskLevel ?? null,
		nextReviewDate: client.nextReviewDate ?? null,
		partner: client.partner?.name ?? null,
		manager: client.manager?.name ?? null,
		lastModifiedAt: client.lastModifiedAt,
	};
	const keys = listItem ? SIMPLIFIED_KEYS.clientListItem : SIMPLIFIED_KEYS.client;
	return Object.fromEntries(keys.map((key) => [key, values[key]]));
}
