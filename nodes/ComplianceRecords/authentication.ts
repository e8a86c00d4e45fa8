import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

import { credentialTypeFor } from './transport/credentialChoice';

export const authenticationProperty: INodeProperties = {
	displayName: 'Authentication',
	name: 'authentication',
	type: 'options',
	options: [
		{ name: 'API Key', value: 'apiKey' },
		{ name: 'OAuth2', value: 'oAuth2' },
	],
	default: 'apiKey',
};

export const serviceCredentials: INodeCredentialDescription[] = (['apiKey', 'oAuth2'] as const).map(
	(authentication) => ({
		name: credentialTypeFor(authentication),
		required: true,
		displayOptions: { show: { authentication: [authentication] } },
	}),
);
