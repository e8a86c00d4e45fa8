import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import {
	BUSINESS_UNIT,
	fetchFirm,
	type FirmReference,
	MANAGER,
	PARTNER,
	SERVICE,
} from '../helpers/firm';

/** The dropdowns of the client fields, all filled from GET /firm, sorted by name. */
async function optionsOf(
	context: ILoadOptionsFunctions,
	reference: FirmReference,
): Promise<INodePropertyOptions[]> {
	return reference
		.choices(await fetchFirm(context))
		.map(({ id, name, description }) => ({ name, value: id, ...(description && { description }) }))
		.sort((a, b) => a.name.localeCompare(b.name));
}

export async function getPartners(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return await optionsOf(this, PARTNER);
}

export async function getManagers(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return await optionsOf(this, MANAGER);
}

export async function getBusinessUnits(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return await optionsOf(this, BUSINESS_UNIT);
}

export async function getServices(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return await optionsOf(this, SERVICE);
}
