import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { baseUrlProperty, credentialIcon } from './common';
import { insecureUrlProblem, SERVICE_HEADERS } from '../shared/service';

/** Where a request goes once axios joins its base URL and path. */
function targetUrl(requestOptions: IHttpRequestOptions): string {
	const { baseURL, url } = requestOptions;
	if (!baseURL || /^[a-z][a-z\d+.-]*:/i.test(url)) return url;
	return `${baseURL.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
}

export class ComplianceRecordsApi implements ICredentialType {
	name = 'complianceRecordsApi';

	displayName = 'Compliance Records API';

	icon = credentialIcon;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-compliance-records#credentials';

	properties: INodeProperties[] = [
		baseUrlProperty,
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				"Generated in the service's web app under the firm settings, API services area (give it a name and, if you like, an expiry date)",
		},
	];

	/** Runs for the credential test and any node using the credential, whatever URL it targets. */
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const problem = insecureUrlProblem(targetUrl(requestOptions));
		if (problem) throw new UserError(problem);
		requestOptions.headers = {
			...requestOptions.headers,
			Authorization: `Bearer ${credentials.apiKey as string}`,
		};
		return requestOptions;
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: '/firm',
			headers: { ...SERVICE_HEADERS },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key is invalid, expired or revoked. Generate a new one in the firm settings (API services).',
				},
			},
		],
	};
}
