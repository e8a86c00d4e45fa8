import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { API_VERSION, insecureUrlProblem } from '../nodes/ComplianceRecords/shared/transport';

/** Where a request goes once axios joins its base URL and path. */
function targetUrl(requestOptions: IHttpRequestOptions): string {
	const { baseURL, url } = requestOptions;
	if (!baseURL || /^[a-z][a-z\d+.-]*:/i.test(url)) return url;
	return `${baseURL.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
}

export class ComplianceRecordsApi implements ICredentialType {
	name = 'complianceRecordsApi';

	displayName = 'Compliance Records API';

	icon: Icon = {
		light: 'file:../icons/complianceRecords.svg',
		dark: 'file:../icons/complianceRecords.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-compliance-records#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/v1',
			description:
				"The service's API base address. Must be https:// (plain http:// only for a sandbox on this machine).",
		},
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

	/**
	 * Sends the key as a bearer token, but never in clear to another machine: this runs for the
	 * credential test and for any node using the credential, whatever URL it targets.
	 */
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
			headers: { 'accept-version': API_VERSION },
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
