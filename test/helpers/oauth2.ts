/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets --
   development tooling: runs in Node, not in n8n; OAUTH2_TYPE is a credential type's name, not a secret */
import { ClientOAuth2, type ClientOAuth2Options } from '@n8n/client-oauth2';
import type { IDataObject } from 'n8n-workflow';
import { UnexpectedError } from 'n8n-workflow';
import { createHash, randomBytes } from 'node:crypto';

import type { CredentialStore } from './credentials';

/** n8n's OAuth2 callback, which the operator must allow-list: `<n8n url>/rest/oauth2-credential/callback`. */
export const N8N_CALLBACK_URL = 'http://localhost:5678/rest/oauth2-credential/callback';

const OAUTH2_TYPE = 'complianceRecordsOAuth2Api';

/** What n8n builds from the credential (its defaults and `$self` expressions resolved). */
function clientOptions(oauth: IDataObject, redirectUri: string): ClientOAuth2Options {
	const scope = String(oauth.scope ?? 'openid');
	return {
		clientId: String(oauth.clientId),
		clientSecret: String(oauth.clientSecret ?? ''),
		accessTokenUri: String(oauth.accessTokenUrl),
		authorizationUri: String(oauth.authUrl),
		authentication: (oauth.authentication as 'header' | 'body') ?? 'header',
		redirectUri,
		scopes: scope.split(','),
		scopesSeparator: scope.includes(',') ? ',' : ' ',
	};
}

export interface OAuth2Connection {
	/** The authorize URL n8n opened in the user's browser. */
	authorizeUrl: URL;
	/** The token request's answer, as n8n stores it in the credential. */
	tokenData: IDataObject;
}

/**
 * The "Connect my account" button of an OAuth2 credential with the PKCE grant, step by step as
 * n8n does it with its own client (@n8n/client-oauth2): a verifier and its S256 challenge, the
 * authorize URL (the sandbox approves its demo user at once and redirects to the callback), then
 * the code exchanged for tokens with the verifier. The token is stored in the credential.
 */
export async function connectOAuth2(
	credentials: CredentialStore,
	redirectUri = N8N_CALLBACK_URL,
): Promise<OAuth2Connection> {
	const oauth = credentials.withDefaults(OAUTH2_TYPE, credentials.stored(OAUTH2_TYPE));
	const state = randomBytes(16).toString('base64url');
	const codeVerifier = randomBytes(48).toString('base64url');
	const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');

	const authorizeUrl = new URL(
		new ClientOAuth2({
			...clientOptions(oauth, redirectUri),
			state,
			query: { code_challenge: codeChallenge, code_challenge_method: 'S256' },
		}).code.getUri(),
	);
	const approval = await fetch(authorizeUrl, { redirect: 'manual' });
	const callbackUrl = approval.headers.get('location');
	if (!callbackUrl) {
		throw new UnexpectedError(
			`The authorization server did not redirect (HTTP ${approval.status}): ${await approval.text()}`,
		);
	}

	const token = await new ClientOAuth2({
		...clientOptions(oauth, redirectUri),
		state,
	}).code.getToken(callbackUrl, {
		body: { code_verifier: codeVerifier },
	});
	credentials.set(OAUTH2_TYPE, { ...credentials.stored(OAUTH2_TYPE), oauthTokenData: token.data });
	return { authorizeUrl, tokenData: token.data };
}
