import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { serviceRequest } from '../transport/request';

/** The dropdowns of the client fields, all filled from GET /firm (spec §2.6). */

interface StaffMember {
	id: string;
	firstName: string;
	lastName: string;
	isPartner: boolean;
	isManager: boolean;
}

interface Firm {
	services: Array<{ id: string; name: string }>;
	businessUnits: Array<{ id: string; name: string; type: string }>;
	staff: StaffMember[];
}

async function firm(context: ILoadOptionsFunctions): Promise<Firm> {
	const response = (await serviceRequest.call(context, { method: 'GET', url: '/firm' })) as { data: Firm };
	return response.data;
}

function sortedOptions(options: INodePropertyOptions[]): INodePropertyOptions[] {
	return options.sort((a, b) => a.name.localeCompare(b.name));
}

function staffOptions(staff: StaffMember[]): INodePropertyOptions[] {
	return sortedOptions(
		staff.map((member) => ({ name: `${member.firstName} ${member.lastName}`, value: member.id })),
	);
}

export async function getPartners(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return staffOptions((await firm(this)).staff.filter((member) => member.isPartner));
}

export async function getManagers(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return staffOptions((await firm(this)).staff.filter((member) => member.isManager));
}

export async function getBusinessUnits(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return sortedOptions(
		(await firm(this)).businessUnits.map((unit) => ({
			name: unit.name,
			value: unit.id,
			description: unit.type,
		})),
	);
}

export async function getServices(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return sortedOptions((await firm(this)).services.map((service) => ({ name: service.name, value: service.id })));
}
