import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteSingleFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

/** Which credential a request uses: both nodes' 'Authentication' parameter picks one of two types. */
export type Authentication = 'apiKey' | 'oAuth2';

export function credentialTypeFor(authentication: Authentication): string {
	return authentication === 'oAuth2' ? 'complianceRecordsOAuth2Api' : 'complianceRecordsApi';
}

/** Any node context that reads the 'Authentication' parameter. */
export type ServiceContext = IExecuteSingleFunctions | ILoadOptionsFunctions | IPollFunctions;

export function authenticationOf(context: ServiceContext): Authentication {
	return context.getNodeParameter('authentication', 'apiKey') as Authentication;
}

/** Values that must never reach an error message, whatever the service echoes back. */
export function credentialSecrets(credentials: ICredentialDataDecryptedObject): string[] {
	const token = (credentials.oauthTokenData ?? {}) as IDataObject;
	return [
		credentials.apiKey,
		credentials.clientSecret,
		token.access_token,
		token.refresh_token,
	].filter((value): value is string => typeof value === 'string' && value.length > 0);
}
