import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { baseUrlProperty, credentialIcon } from './common';
import { trimmedUrlExpression } from '../shared/service';

const selfUrl = (field: string) => trimmedUrlExpression(`$self["${field}"]`);

/** PKCE (S256) for a public client: no secret, so n8n sends the client ID in the token request. */
export class ComplianceRecordsOAuth2Api implements ICredentialType {
	name = 'complianceRecordsOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Compliance Records OAuth2 API';

	icon = credentialIcon;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-compliance-records#credentials';

	properties: INodeProperties[] = [
		baseUrlProperty,
		{
			displayName: 'Authorization Server URL',
			name: 'authServerUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://auth.example.com',
			description: 'The address of the service\'s authorization server, without "/oauth2/..."',
		},
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'pkce',
		},
		{
			displayName: 'Authorization URL',
			name: 'authUrl',
			type: 'hidden',
			default: `={{ ${selfUrl('authServerUrl')} }}/oauth2/authorize`,
			required: true,
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			default: `={{ ${selfUrl('authServerUrl')} }}/oauth2/token`,
			required: true,
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: `=openid {{ ${selfUrl('baseUrl')} }}/api:full`,
		},
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: '',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'hidden',
			default: 'header',
		},
	];
}
