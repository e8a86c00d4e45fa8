/** Which credential a request uses: both nodes' 'Authentication' parameter picks one of two types. */
export type Authentication = 'apiKey' | 'oAuth2';

export function credentialTypeFor(authentication: Authentication): string {
	return authentication === 'oAuth2' ? 'complianceRecordsOAuth2Api' : 'complianceRecordsApi';
}
