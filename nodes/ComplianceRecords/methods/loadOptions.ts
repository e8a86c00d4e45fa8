import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { fetchFirm, staffName, type StaffMember } from '../actions/firm';

/** The dropdowns of the client fields, all filled from GET /firm (spec §2.6). */

function sortedOptions(options: INodePropertyOptions[]): INodePropertyOptions[] {
	return options.sort((a, b) => a.name.localeCompare(b.name));
}

function staffOptions(staff: StaffMember[]): INodePropertyOptions[] {
	return sortedOptions(staff.map((member) => ({ name: staffName(member), value: member.id })));
}

export async function getPartners(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return staffOptions((await fetchFirm(this)).staff.filter((member) => member.isPartner));
}

export async function getManagers(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return staffOptions((await fetchFirm(this)).staff.filter((member) => member.isManager));
}

export async function getBusinessUnits(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return sortedOptions(
		(await fetchFirm(this)).businessUnits.map((unit) => ({
			name: unit.name,
			value: unit.id,
			description: unit.type,
		})),
	);
}

export async function getServices(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return sortedOptions((await fetchFirm(this)).services.map((service) => ({ name: service.name, value: service.id })));
}
