import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

/** How both nodes of the package pick their credential: one parameter, two credential types. */

/** The node's `authentication` parameter. */
export type Authentication = 'apiKey' | 'oAuth2';

/** The credential type the node's `authentication` parameter selects. */
export function credentialTypeFor(authentication: Authentication): string {
	return authentication === 'oAuth2' ? 'complianceRecordsOAuth2Api' : 'complianceRecordsApi';
}

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

/** The node description's `credentials`: the one `authentication` selects is required. */
export const serviceCredentials: INodeCredentialDescription[] = (['apiKey', 'oAuth2'] as const).map(
	(authentication) => ({
		name: credentialTypeFor(authentication),
		required: true,
		displayOptions: { show: { authentication: [authentication] } },
	}),
);
