import { createHash } from 'crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteSingleFunctions,
} from 'n8n-workflow';

import { authenticationOf, credentialTypeFor } from '../../../transport/credentialChoice';
import { SharedIndex } from './executionIndex';

// One index per firm and credential, in memory; the bounds: docs/create-or-update.md, "Bound".
const MAX_CLIENTS = 120_000;
const MAX_CHARACTERS = 8_000_000;
const MAX_FIRMS = 64;

const TRIMMED_TO = 0.9;

/** Least recently used first. */
const held = new Map<string, SharedIndex>();

/** Left out so that a renewed token keeps the index. */
const PER_TOKEN_CLAIMS = new Set(['exp', 'iat', 'nbf', 'jti', 'auth_time', 'at_hash', 'nonce']);

function identityInToken(token: unknown): string | undefined {
	if (typeof token !== 'string') return undefined;
	let claims: unknown;
	try {
		claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
	} catch {
		return undefined;
	}
	if (typeof claims !== 'object' || claims === null) return undefined;
	const { iss, sub } = claims as IDataObject;
	if (typeof iss !== 'string' || typeof sub !== 'string') return undefined;
	const stable = Object.entries(claims).filter(([name]) => !PER_TOKEN_CLAIMS.has(name));
	return JSON.stringify(stable.sort(([a], [b]) => (a < b ? -1 : 1)));
}

function firmOf(type: string, credentials: ICredentialDataDecryptedObject): string | undefined {
	const token = (credentials.oauthTokenData as IDataObject | undefined)?.access_token;
	const holder = type === 'complianceRecordsApi' ? credentials.apiKey : identityInToken(token);
	if (typeof holder !== 'string' || holder === '') return undefined;
	return createHash('sha256')
		.update(JSON.stringify([type, String(credentials.baseUrl), holder]))
		.digest('base64url');
}

function withinBounds(settled: SharedIndex): void {
	const indexes = [...held.values()];
	if (!indexes.includes(settled)) return;
	let clients = 0;
	let characters = 0;
	for (const { index } of indexes) {
		clients += index.size;
		characters += index.characters;
	}
	const over = () => held.size > MAX_FIRMS || clients > MAX_CLIENTS || characters > MAX_CHARACTERS;
	for (const [firm, shared] of held) {
		if (!over()) return;
		if (shared === settled || !shared.idle) continue;
		held.delete(firm);
		clients -= shared.index.size;
		characters -= shared.index.characters;
	}
	if (clients <= MAX_CLIENTS && characters <= MAX_CHARACTERS) return;
	const { index } = settled;
	index.trim({
		clients: Math.floor(TRIMMED_TO * (MAX_CLIENTS - (clients - index.size))),
		characters: Math.floor(TRIMMED_TO * (MAX_CHARACTERS - (characters - index.characters))),
	});
	settled.complete = false;
}

export async function processIndexFor(context: IExecuteSingleFunctions): Promise<SharedIndex> {
	const type = credentialTypeFor(authenticationOf(context));
	const firm = firmOf(type, await context.getCredentials(type));
	if (firm === undefined) return new SharedIndex();
	const shared = held.get(firm) ?? new SharedIndex(withinBounds);
	held.delete(firm);
	held.set(firm, shared);
	return shared;
}
