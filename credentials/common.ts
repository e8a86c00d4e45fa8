import type { Icon, INodeProperties } from 'n8n-workflow';

export const credentialIcon: Icon = {
	light: 'file:../icons/complianceRecords.svg',
	dark: 'file:../icons/complianceRecords.dark.svg',
};

export const baseUrlProperty: INodeProperties = {
	displayName: 'Base URL',
	name: 'baseUrl',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. https://api.example.com/v1',
	description:
		"The service's API base address. Must be https:// (plain http:// only for a sandbox on this machine).",
};
